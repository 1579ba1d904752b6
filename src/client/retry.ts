import type { RetryOptions } from '../net/retry.js';
import { DecideError } from './errors.js';

/**
 * What the client retries, and how long it waits. Only answers that say "nothing was
 * done, try again" are retried: 503 (the engine or the service unavailable) and 429
 * `engine_busy` / `rate_limited`. A 429 `free_limit_reached` is not (it lasts until
 * UTC midnight), nor any other 4xx, 502 or 504 (the engine answered badly or too late;
 * asking again costs the same wait for the same result), nor a transport failure.
 *
 * One addition: 409 `idempotency_in_progress` on a decision is retried too. It means
 * an earlier attempt with the same Idempotency-Key is still running (say a proxy gave
 * up on it with a 503); waiting and asking again replays that attempt's answer
 * instead of failing a decision that is about to succeed, and cannot charge twice.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2, so at most 3 attempts). */
  retries: number;
  /**
   * The longest `Retry-After` the client waits for, in ms (default 10 000). A longer one
   * is not worth blocking on (a site limit, say): the error is returned at once, its
   * `retryAfter` telling the caller when to come back.
   */
  maxWaitMs: number;
  /** Wait when an answer carries no `Retry-After`: baseDelayMs × 2^(attempt − 1). */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, maxWaitMs: 10_000, baseDelayMs: 500 };

export function isRetryable(error: DecideError, idempotent: boolean): boolean {
  if (error.status === 503) return true;
  if (error.status === 429) return error.code === 'engine_busy' || error.code === 'rate_limited';
  return idempotent && error.code === 'idempotency_in_progress';
}

/**
 * The policy as net/retry.ts runs it: attempts, which failures, the backoff, and a
 * wait longer than `maxWaitMs` (Retry-After's or the backoff's) not made at all.
 */
export function retryOptions(policy: RetryPolicy, idempotent: boolean): Omit<RetryOptions, 'signal' | 'onRetry'> {
  return {
    attempts: policy.retries + 1,
    retryable: (error) => error instanceof DecideError && isRetryable(error, idempotent),
    backoff: { baseMs: policy.baseDelayMs },
    retryAfterMs: (error) => {
      const seconds = (error as DecideError).retryAfter;
      return seconds === undefined ? undefined : seconds * 1000;
    },
    maxWaitMs: policy.maxWaitMs,
  };
}
