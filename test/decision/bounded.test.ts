import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../src/decision/bounded.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** A task that takes a few ticks, or until its signal aborts. */
function abortable(ticks: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ticks);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

describe('mapBounded', () => {
  it('returns results in item order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapBounded(
      Array.from({ length: 13 }, (_, i) => i),
      4,
      async (n) => {
        running++;
        peak = Math.max(peak, running);
        for (let t = 0; t < (n % 3) + 1; t++) await tick();
        running--;
        return n * n;
      },
      new AbortController().signal,
    );
    expect(results).toEqual(Array.from({ length: 13 }, (_, i) => i * i));
    expect(peak).toBe(4);
  });

  it('runs everything at once when the limit allows it', async () => {
    let started = 0;
    const all = mapBounded(
      [1, 2, 3],
      16,
      async () => {
        started++;
        return tick();
      },
      new AbortController().signal,
    );
    expect(started).toBe(3);
    await all;
  });

  it('throws the first failure as is, aborts the tasks under way and starts no more', async () => {
    const failure = new Error('engine busy');
    const started: number[] = [];
    const aborted: number[] = [];
    const run = mapBounded(
      [0, 1, 2, 3, 4, 5],
      3,
      async (n, signal) => {
        started.push(n);
        if (n === 1) {
          await tick();
          throw failure;
        }
        try {
          await abortable(1000, signal);
        } catch (error) {
          aborted.push(n);
          throw error;
        }
      },
      new AbortController().signal,
    );
    await expect(run).rejects.toBe(failure);
    expect(started).toEqual([0, 1, 2]);
    expect(aborted.sort()).toEqual([0, 2]);
  });

  it('passes an abort of the caller’s signal on to the tasks', async () => {
    const caller = new AbortController();
    const seen: unknown[] = [];
    const run = mapBounded(
      [0, 1],
      2,
      async (_, signal) => {
        await abortable(1000, signal).catch((error) => {
          seen.push(signal.reason);
          throw error;
        });
      },
      caller.signal,
    );
    caller.abort('deadline');
    await expect(run).rejects.toThrow('aborted');
    expect(seen).toEqual(['deadline', 'deadline']);
  });

  it('hands an already aborted signal to the tasks', async () => {
    const caller = new AbortController();
    caller.abort();
    const states = await mapBounded([0], 1, async (_, signal) => signal.aborted, caller.signal);
    expect(states).toEqual([true]);
  });

  it('handles no items and rejects a limit below 1', async () => {
    expect(await mapBounded([], 2, async () => 1, new AbortController().signal)).toEqual([]);
    await expect(mapBounded([1], 0, async () => 1, new AbortController().signal)).rejects.toThrow(RangeError);
  });
});
