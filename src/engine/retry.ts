import { withRetries } from '../net/retry.js';
import type { Deadline } from './deadline.js';
import { EngineError } from './engine.js';
import { RateLimited, retryAfterSeconds } from './http-failures.js';

/** Longest `Retry-After` we sit through; past it the caller is better told `busy` at once. */
export const MAX_RETRY_WAIT_MS = 2000;
/** Wait when a 429 names no delay (or one that is no `Retry-After`). */
export const DEFAULT_RETRY_WAIT_MS = 500;
/** A retry that would start with less time than this left cannot finish in time. */
const MIN_ATTEMPT_MS = 250;

/**
 * Runs `attempt`; after a first 429 (or 529) it waits what the provider asked (capped) and
 * tries once more, but only when that wait still leaves room before the deadline.
 * Everything else (5xx, connection errors, timeouts) is not retried: the decision's
 * deadline is shared by all its calls, and a second slow attempt would only eat it.
 */
export async function withOneRateLimitRetry<T>(attempt: () => Promise<T>, deadline: Deadline): Promise<T> {
  let attempts = 0;
  try {
    return await withRetries(
      () => {
        attempts++;
        return attempt();
      },
      {
        attempts: 2,
        retryable: (err) => err instanceof RateLimited,
        backoff: { baseMs: DEFAULT_RETRY_WAIT_MS },
        retryAfterMs: (err) => (err as RateLimited).retryAfterMs,
        maxWaitMs: () => Math.min(MAX_RETRY_WAIT_MS, deadline.remainingMs() - MIN_ATTEMPT_MS),
        // The deadline's signal aborts with its own failure (timeout), which a cut wait throws.
        signal: deadline.signal,
      },
    );
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    throw busy(err, attempts > 1 ? 'again after one retry' : 'asked to wait longer than the deadline allows');
  }
}

function busy(err: RateLimited, why: string): EngineError {
  const state = err.status === 429 ? 'rate-limited' : 'overloaded';
  return new EngineError('busy', `${err.provider} engine is ${state} (HTTP ${err.status}, ${why})`, retryAfterSeconds(err.retryAfterMs));
}
