/**
 * Trying something again after it failed, for every part of decide that does: the typed
 * client (the service said "busy"), the engines (a provider said 429), the PostgreSQL
 * ledger (a serialization failure, a lost connection), the SQLite ledger (a lock held
 * by another process). Each keeps its own policy, as the data below; this file holds
 * the loop.
 *
 * No import beyond the language: the published client loads this file.
 */

export interface Backoff {
  /** The wait before the first retry; each later one waits twice the one before. */
  baseMs: number;
  /** The longest wait the doubling reaches (default no limit). */
  maxMs?: number;
  /** Up to this much more at random, so callers that failed together do not come back together (default 0). */
  jitterMs?: number;
}

export interface RetryEvent {
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long the wait before the next attempt is. */
  delayMs: number;
  error: unknown;
}

export interface RetryOptions {
  /** Attempts in all, the first one included. */
  attempts: number;
  /** Whether `error`, the failure of attempt number `attempt`, may be tried again. */
  retryable(error: unknown, attempt: number): boolean;
  /** The wait when the failure names none. */
  backoff: Backoff;
  /**
   * The wait the other side asked for, in ms (its `Retry-After`, read with
   * net/retry-after.ts), when the failure carries one: it replaces the backoff.
   */
  retryAfterMs?(error: unknown): number | undefined;
  /**
   * A longer wait is not made: the failure is thrown at once, as if retries had run
   * out. A function is asked at the moment of the wait (the time left to a deadline).
   */
  maxWaitMs?: number | (() => number);
  /** Ends a wait at once, rejecting with the signal's reason. */
  signal?: AbortSignal;
  /** The waits do not keep the process alive: a retry in the background, which a process shutting down may leave. */
  unref?: boolean;
  /** Told before each wait. */
  onRetry?(event: RetryEvent): void;
}

/**
 * Runs `attempt` (given its number, 1-based) until it succeeds or the policy gives up;
 * then the last failure is thrown as it is.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, policy: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= policy.attempts || !policy.retryable(error, n)) throw error;
      const delayMs = policy.retryAfterMs?.(error) ?? backoffMs(policy.backoff, n);
      const maxWaitMs = typeof policy.maxWaitMs === 'function' ? policy.maxWaitMs() : policy.maxWaitMs;
      if (maxWaitMs !== undefined && delayMs > maxWaitMs) throw error;
      policy.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, policy.signal, policy.unref);
    }
  }
}

/** The wait after failed attempt `n` (1-based): baseMs × 2^(n−1), at most maxMs, plus the jitter. */
export function backoffMs({ baseMs, maxMs = Infinity, jitterMs = 0 }: Backoff, n: number): number {
  return Math.min(baseMs * 2 ** (n - 1), maxMs) + Math.random() * jitterMs;
}

/**
 * setTimeout as a promise that an AbortSignal cuts short (rejecting with its reason);
 * `unref`: the timer does not keep Node's process alive.
 */
export function sleep(ms: number, signal?: AbortSignal, unref = false): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    // A browser's timer is a number, with nothing to unref.
    if (unref) (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
