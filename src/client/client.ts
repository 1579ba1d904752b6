import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { DecisionResponse, describeIssues, KeyRevoked, Metrics, Usage, type DecisionRequest } from '../contract/index.js';
import { DecideError, isServiceCode } from './errors.js';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, sleep, type RetryPolicy } from './retry.js';

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
  /** Base URL of the service, e.g. `http://127.0.0.1:8787` (a path prefix is kept). */
  url: string;
  /** `dcd_api_…`; needed by everything but `metrics()`. Sent only as a bearer header. */
  apiKey?: string;
  /** Overrides of the retry policy (at most 2 retries, Retry-After up to 10 s). */
  retry?: Partial<RetryPolicy>;
  /** Deadline of one attempt, in ms (default 120 000: a stress decision takes a while). */
  timeoutMs?: number;
  /** An undici dispatcher (proxy agent, custom pool); the global one by default. */
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

interface Route<T> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  schema: z.ZodType<T>;
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
    const base = new URL(options.url);
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
          { method: 'POST', path: '/v1/decisions', schema: DecisionResponse, auth: true, body, retry: true, idempotencyKey: opts.idempotencyKey ?? randomUUID() },
          opts,
        ),
      usage: (opts = {}) => this.#call({ method: 'GET', path: '/v1/usage', schema: Usage, auth: true, retry: true }, opts),
      revoke: (opts = {}) => this.#call({ method: 'DELETE', path: '/v1/key', schema: KeyRevoked, auth: true, retry: false }, opts),
      metrics: (opts = {}) => this.#call({ method: 'GET', path: '/v1/metrics', schema: Metrics, auth: false, retry: true }, opts),
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
    for (let attempt = 1; ; attempt++) {
      try {
        return { ...(await this.#once(route, options.signal)), attempts: attempt };
      } catch (error) {
        if (!(error instanceof DecideError) || !route.retry) throw error;
        const delayMs = retryDelay(error, attempt, this.#policy, route.idempotencyKey !== undefined);
        if (delayMs === undefined) throw error;
        this.#onRetry?.({ attempt, delayMs, error });
        await sleep(delayMs, options.signal);
      }
    }
  }

  async #once<T>(route: Route<T>, signal: AbortSignal | undefined): Promise<Omit<Answer<T>, 'attempts'>> {
    const where = `${route.method} ${this.url}${route.path}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'decide-client' };
    if (route.auth && this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    if (route.idempotencyKey !== undefined) headers['idempotency-key'] = route.idempotencyKey;
    let body: string | undefined;
    if (route.body !== undefined) {
      body = JSON.stringify(route.body);
      headers['content-type'] = 'application/json';
    }

    const deadline = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    let raw: Record<string, string | string[] | undefined>;
    try {
      const res = await request(this.url + route.path, {
        method: route.method,
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        dispatcher: this.#dispatcher,
      });
      status = res.statusCode;
      raw = res.headers;
      text = await res.body.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') throw error; // a bad header value: a bug, not the network
      if (deadline.aborted) {
        throw new DecideError(0, 'timeout', `${where}: no answer within ${this.#timeoutMs} ms`, undefined, { cause: error });
      }
      throw new DecideError(0, 'unreachable', `cannot reach the decide service (${where}): ${reason(error)}`, undefined, { cause: error });
    }

    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    const json = parseJson(text);

    if (status < 200 || status >= 300) {
      const retryAfter = parseRetryAfter(flat['retry-after']);
      const failure = json as { error?: unknown; code?: unknown } | undefined;
      if (failure && typeof failure.error === 'string' && isServiceCode(failure.code)) {
        throw new DecideError(status, failure.code, failure.error, retryAfter);
      }
      throw new DecideError(status, 'bad_response', `${where} answered HTTP ${status} without the API's { error, code } body`, retryAfter);
    }
    if (json === undefined) throw new DecideError(status, 'bad_response', `${where} answered HTTP ${status} with a body that is not JSON`);
    const parsed = route.schema.safeParse(json);
    if (!parsed.success) {
      throw new DecideError(status, 'bad_response', `${where} answered outside the contract: ${describeIssues(parsed.error)}`);
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

/** The most telling part of a network error: its code (ECONNREFUSED, ENOTFOUND, …) or message. */
function reason(error: unknown): string {
  const err = error as { code?: string; message?: string; errors?: Array<{ code?: string }> };
  const code = err.code ?? err.errors?.find((inner) => inner.code)?.code;
  return code ?? err.message ?? String(error);
}
