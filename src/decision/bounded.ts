import { setMaxListeners } from 'node:events';

/**
 * Runs `task` over `items` with at most `limit` at a time and returns the results in
 * item order. The first failure aborts the signal handed to every task, starts no
 * further task and, once the tasks under way have settled, is thrown as is: a
 * failed batch leaves nothing running behind it, and later failures caused by the
 * abort do not mask the one that mattered.
 *
 * Tasks receive a signal derived from `signal`, so aborting the caller's signal
 * reaches every task too.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, signal: AbortSignal, index: number) => Promise<R>,
  signal: AbortSignal,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  // One task has no sibling to stop when it fails: it gets the caller's signal as is
  // (a standard decision is one engine call; this spares it a controller).
  if (items.length === 1) return [await task(items[0], signal, 0)];
  const controller = new AbortController();
  // Each running task listens for the abort: up to `limit` listeners is expected, not a leak.
  setMaxListeners(limit + 10, controller.signal);
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });

  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index], controller.signal, index);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          controller.abort(error);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    signal.removeEventListener('abort', forward);
  }
  if (failure !== undefined) throw failure.error;
  return results;
}
