import { randomUUID } from 'node:crypto';
import type { Dispatcher, RequestInit as UndiciRequestInit } from 'undici';
import type { z } from 'zod';
import type { DecisionResponse } from '../contract/answer.js';
import type { DecisionRequest } from '../contract/decision.js';
import type { KeyRevoked, Metrics, Usage } from '../contract/records.js';
import { shownUrl, withoutUrlSecrets } from '../config/shown-url.js';
import { serviceRoot } from './base-url.js';
import { DecideError, isServiceCode } from './errors.js';
import { parseRetryAfter } from '../net/retry-after.js';
import { withRetries } from '../net/retry.js';
import { DEFAULT_RETRY, retryOptions, type RetryPolicy } from './retry.js';

/** Arrays may be readonly on the way in (`as const` requests), as the client only reads them. */
type ReadonlyArrays<T> = T extends unknown ? { [K in keyof T]: T[K] extends string[] ? readonly string[] : T[K] } : never;

/** What `decide()` takes: a DecisionRequest as the caller writes it (`depth` optional). */
export type DecisionRequestInput = ReadonlyArrays<z.input<typeof DecisionRequest>>;

export interface RetryEvent {
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long the client waits before the next one. */
  delayMs: number;
  error: DecideError;
}

export interface DecideClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8787` (a path prefix is kept; a last `/v1` is taken off, base-url.ts). */
  url: string;
  /** `dcd_api_…`; needed by everything but `metrics()`. Sent only as a bearer header. */
  apiKey?: string;
  /** Overrides of the retry policy (at most 2 retries, Retry-After up to 10 s). */
  retry?: Partial<RetryPolicy>;
  /** Deadline of one attempt, in ms (default 120 000: a stress decision takes a while). */
  timeoutMs?: number;
  /**
   * An undici dispatcher (proxy agent, custom pool). Without one the client uses Node's
   * own `fetch`; with one, the undici package's `fetch`, which takes it.
   */
  dispatcher?: Dispatcher;
  /** Called before each wait for a retry (a CLI shows it; a server may log it). */
  onRetry?: (event: RetryEvent) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface DecideOptions extends CallOptions {
  /**
   * The `Idempotency-Key` header (1–255 printable ASCII). A random UUID by default,
   * shared by the automatic retries of this call; pass your own to retry a call
   * whose answer was lost without paying twice.
   */
  idempotencyKey?: string;
}

/** A successful answer with what came with it: the exact body text, for printing it as is. */
export interface Answer<T> {
  data: T;
  text: string;
  status: number;
  headers: Record<string, string>;
  /** 1 when the first attempt succeeded. */
  attempts: number;
  /** The service replayed an earlier answer for this Idempotency-Key (no new charge). */
  replayed: boolean;
}

/** The same calls as the client's methods, answering with an Answer. */
export interface RawCalls {
  decide(request: DecisionRequestInput, options?: DecideOptions): Promise<Answer<DecisionResponse>>;
  usage(options?: CallOptions): Promise<Answer<Usage>>;
  revoke(options?: CallOptions): Promise<Answer<KeyRevoked>>;
  metrics(options?: CallOptions): Promise<Answer<Metrics>>;
}

type AnswerSchemas = typeof import('./answer-schemas.js');

let answerSchemas: Promise<AnswerSchemas> | undefined;
/** Loaded once, from the first call on, while its request is under way. */
function loadAnswerSchemas(): Promise<AnswerSchemas> {
  if (!answerSchemas) {
    answerSchemas = import('./answer-schemas.js');
    answerSchemas.catch(() => {}); // awaited where the answer is read; a call that fails first never does
  }
  return answerSchemas;
}

interface Route<T> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The schema a success answers with. */
  schema: (schemas: AnswerSchemas) => z.ZodType<T>;
  auth: boolean;
  body?: unknown;
  idempotencyKey?: string;
  /** DELETE /v1/key is not retried: had the first attempt worked, a retry would get 401. */
  retry: boolean;
}

/**
 * The typed client of the decide HTTP API. Every success is validated against the
 * contract's schemas; every failure is a DecideError.
 */
export class DecideClient {
  /** The base URL, without a trailing slash. */
  readonly url: string;
  readonly raw: RawCalls;
  readonly #apiKey: string | undefined;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;

  constructor(options: DecideClientOptions) {
    const base = serviceRoot(new URL(options.url));
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`DecideClient url must be http:// or https://, got ${base.protocol}`);
    }
    base.search = '';
    base.hash = '';
    this.url = base.toString().replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#policy = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#dispatcher = options.dispatcher;
    this.#onRetry = options.onRetry;
    this.raw = {
      decide: (body, opts = {}) =>
        this.#call(
          {
            method: 'POST',
            path: '/v1/decisions',
            schema: (s) => s.DecisionResponse,
            auth: true,
            body,
            retry: true,
            idempotencyKey: opts.idempotencyKey ?? randomUUID(),
          },
          opts,
        ),
      usage: (opts = {}) => this.#call({ method: 'GET', path: '/v1/usage', schema: (s) => s.Usage, auth: true, retry: true }, opts),
      revoke: (opts = {}) => this.#call({ method: 'DELETE', path: '/v1/key', schema: (s) => s.KeyRevoked, auth: true, retry: false }, opts),
      metrics: (opts = {}) => this.#call({ method: 'GET', path: '/v1/metrics', schema: (s) => s.Metrics, auth: false, retry: true }, opts),
    };
  }

  /** `POST /v1/decisions`: a decision, charged once however many retries it took. */
  async decide(request: DecisionRequestInput, options?: DecideOptions): Promise<DecisionResponse> {
    return (await this.raw.decide(request, options)).data;
  }

  /** `GET /v1/usage`: today's free allowance and the linked pass's credits. */
  async usage(options?: CallOptions): Promise<Usage> {
    return (await this.raw.usage(options)).data;
  }

  /** `DELETE /v1/key`: revokes the client's own key; later calls with it get 401. */
  async revoke(options?: CallOptions): Promise<KeyRevoked> {
    return (await this.raw.revoke(options)).data;
  }

  /** `GET /v1/metrics`: today's processing times (public, no key needed). */
  async metrics(options?: CallOptions): Promise<Metrics> {
    return (await this.raw.metrics(options)).data;
  }

  async #call<T>(route: Route<T>, options: CallOptions): Promise<Answer<T>> {
    const once = async (attempts: number) => ({ ...(await this.#once(route, options.signal)), attempts });
    if (!route.retry) return once(1);
    return withRetries(once, {
      ...retryOptions(this.#policy, route.idempotencyKey !== undefined),
      signal: options.signal,
      // Only a DecideError is retryable (retryOptions), so only one reaches onRetry.
      onRetry: (event) => this.#onRetry?.({ ...event, error: event.error as DecideError }),
    });
  }

  async #once<T>(route: Route<T>, signal: AbortSignal | undefined): Promise<Omit<Answer<T>, 'attempts'>> {
    // Messages name the URL with its password masked (the query is never sent: see the constructor).
    const where = `${route.method} ${shownUrl(this.url + route.path)}`;
    const headers = new Headers({ accept: 'application/json', 'user-agent': 'decide-client' });
    // Built before the call, so a bad header value (an Idempotency-Key with a line
    // break, say) throws its TypeError as the caller's bug, not as the network's failure.
    if (route.auth && this.#apiKey !== undefined) headers.set('authorization', `Bearer ${this.#apiKey}`);
    if (route.idempotencyKey !== undefined) headers.set('idempotency-key', route.idempotencyKey);
    let body: string | undefined;
    if (route.body !== undefined) {
      body = JSON.stringify(route.body);
      headers.set('content-type', 'application/json');
    }

    const deadline = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    const flat: Record<string, string> = {};
    const send = await fetcher(this.#dispatcher);
    try {
      const sent = send(this.url + route.path, {
        method: route.method,
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        // Any answer but the API's is reported as it is; a redirect is not followed.
        redirect: 'manual',
      });
      void loadAnswerSchemas();
      const res = await sent;
      status = res.status;
      res.headers.forEach((value, name) => (flat[name] = value));
      text = await res.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) {
        throw new DecideError(0, 'timeout', `${where}: no answer within ${this.#timeoutMs} ms`, undefined, { cause: error });
      }
      throw new DecideError(
        0,
        'unreachable',
        `cannot reach the decide service (${where}): ${withoutUrlSecrets(reason(error), this.url)}`,
        undefined,
        { cause: error },
      );
    }

    const json = parseJson(text);
    const answered = { requestId: flat['x-request-id'] };

    if (status < 200 || status >= 300) {
      const waitMs = parseRetryAfter(flat['retry-after']);
      const retryAfter = waitMs === undefined ? undefined : Math.ceil(waitMs / 1000);
      const failure = json as { error?: unknown; code?: unknown; requestId?: unknown } | undefined;
      if (failure && typeof failure.error === 'string' && isServiceCode(failure.code)) {
        const requestId = typeof failure.requestId === 'string' ? failure.requestId : answered.requestId;
        throw new DecideError(status, failure.code, failure.error, retryAfter, { requestId });
      }
      const message = `${where} answered HTTP ${status} without the API's { error, code } body`;
      throw new DecideError(status, 'bad_response', message, retryAfter, answered);
    }
    if (json === undefined) {
      throw new DecideError(status, 'bad_response', `${where} answered HTTP ${status} with a body that is not JSON`, undefined, answered);
    }
    const contract = await loadAnswerSchemas();
    const parsed = route.schema(contract).safeParse(json);
    if (!parsed.success) {
      const message = `${where} answered outside the contract: ${contract.describeIssues(parsed.error)}`;
      throw new DecideError(status, 'bad_response', message, undefined, answered);
    }
    return { data: parsed.data, text, status, headers: flat, replayed: flat['idempotent-replayed'] === 'true' };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Node's `fetch`, which is undici built into Node, compiled into its binary: from its
 * first use to the request on the wire it costs about a third of what importing the
 * undici package alone did (bench/README.md, row 7). A caller's dispatcher comes from
 * the undici package, so that package's `fetch` carries it.
 */
async function fetcher(dispatcher: Dispatcher | undefined): Promise<(url: string, init: RequestInit) => Promise<Response>> {
  if (!dispatcher) return fetch;
  const undici = await import('undici');
  // The same WHATWG types, declared twice (by undici and by @types/node's copy of it).
  return (url, init) => undici.fetch(url, { ...(init as UndiciRequestInit), dispatcher }) as unknown as Promise<Response>;
}

/**
 * The most telling part of a network error: the socket's code (ECONNREFUSED,
 * ENOTFOUND, …), which fetch wraps in its `fetch failed` TypeError, or a message.
 */
function reason(error: unknown): string {
  let deepest = String(error);
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const err = cause as Error & { code?: unknown; errors?: Array<{ code?: unknown }> };
    const code = err.code ?? err.errors?.find((inner) => typeof inner.code === 'string')?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    // The fetch standard refuses some ports outright (1, 6000, 6665–6669, …).
    if (err.message === 'bad port') return 'fetch refuses this port (a port the fetch standard blocks); run the service on another';
    deepest = err.message;
    cause = err.cause;
  }
  return deepest;
}
