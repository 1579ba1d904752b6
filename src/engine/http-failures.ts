import { parseRetryAfter } from '../net/retry-after.js';
import { EngineError } from './engine.js';

/**
 * A 429 from the provider (or another "come back shortly" status, such as Anthropic's
 * 529 overloaded). Not an EngineError yet: the retry policy decides whether it becomes
 * a second attempt or `busy`.
 */
export class RateLimited extends Error {
  constructor(
    readonly provider: string,
    /** Milliseconds the provider asked us to wait, when it said. */
    readonly retryAfterMs: number | undefined,
    readonly status = 429,
  ) {
    super(`${provider} engine answered HTTP ${status}`);
    this.name = 'RateLimited';
  }
}

/** EngineError carries whole seconds, as the service's own `Retry-After` header does. */
export function retryAfterSeconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/**
 * A non-2xx status. The body is deliberately not quoted: providers echo request
 * headers and keys in error bodies often enough that passing them on is a leak.
 */
export function statusFailure(provider: string, status: number, retryAfter?: string | string[] | null): EngineError | RateLimited {
  const waitMs = parseRetryAfter(retryAfter);
  if (status === 429) return new RateLimited(provider, waitMs);
  if (status >= 500) {
    return new EngineError('unavailable', `${provider} engine answered HTTP ${status}`, retryAfterSeconds(waitMs));
  }
  return new EngineError('bad_response', `${provider} engine refused the request with HTTP ${status}`);
}

/**
 * A transport error. Before a status line arrived the provider is unreachable; after
 * a 2xx status line the answer itself was cut off, which makes it an unusable answer
 * rather than an outage.
 */
export function transportFailure(provider: string, err: unknown, status?: number): EngineError | RateLimited {
  if (status !== undefined && (status < 200 || status >= 300)) return statusFailure(provider, status);
  if (status !== undefined) {
    return new EngineError('bad_response', `${provider} engine's answer was cut off before its end`);
  }
  return new EngineError('unavailable', `${provider} engine cannot be reached (${describeCause(err)})`);
}

function describeCause(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return err instanceof Error ? err.message : 'connection failed';
}

/** Last line of defence: no message leaves an engine with the API key in it. */
export function withoutKey(err: unknown, apiKey: string | undefined): unknown {
  if (!apiKey || !(err instanceof Error)) return err;
  const message = withoutKeyParts(err.message, apiKey);
  if (message === err.message) return err;
  if (err instanceof EngineError) return new EngineError(err.kind, message, err.retryAfter);
  return new Error(message);
}

/** The shortest run of a key's characters masked as a part of it: a provider's echo of a truncated key ("sk-abcd…") included. */
const KEY_PART = 8;

/** `text` with every run of at least KEY_PART characters that also occurs in `key` replaced by [redacted]. */
export function withoutKeyParts(text: string, key: string): string {
  if (key.length < KEY_PART) return text.split(key).join('[redacted]');
  let out = '';
  let i = 0;
  while (i < text.length) {
    let j = i;
    while (j < text.length && key.includes(text.slice(i, j + 1))) j++;
    if (j - i >= KEY_PART) {
      out += '[redacted]';
      i = j;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}
