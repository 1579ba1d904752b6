import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { backoffMs, withRetries, type RetryEvent, type RetryOptions } from '../../src/net/retry.js';
import { ROOT } from '../support/cli.js';
import { scaled } from '../support/time.js';

class Busy extends Error {
  constructor(readonly waitMs?: number) {
    super('busy');
  }
}

/** An attempt that fails with each of `failures` in turn, then answers with its number. */
function scripted(...failures: unknown[]) {
  const seen: number[] = [];
  const attempt = async (n: number) => {
    seen.push(n);
    if (n <= failures.length) throw failures[n - 1];
    return `answer of attempt ${n}`;
  };
  return { attempt, seen };
}

const policy = (events: RetryEvent[], more: Partial<RetryOptions> = {}): RetryOptions => ({
  attempts: 3,
  retryable: (error) => error instanceof Busy,
  backoff: { baseMs: 1 },
  retryAfterMs: (error) => (error as Busy).waitMs,
  onRetry: (event) => events.push(event),
  ...more,
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('withRetries', () => {
  it('tries again what the predicate allows, up to the attempts, and answers with the first success', async () => {
    const { attempt, seen } = scripted(new Busy(), new Busy());
    const events: RetryEvent[] = [];
    expect(await withRetries(attempt, policy(events))).toBe('answer of attempt 3');
    expect(seen).toEqual([1, 2, 3]);
    expect(events.map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('throws the last failure as it is once the attempts are used up', async () => {
    const last = new Busy();
    const { attempt, seen } = scripted(new Busy(), new Busy(), last, new Busy());
    expect(await rejection(withRetries(attempt, policy([])))).toBe(last);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('throws at once what the predicate does not allow, and tells the predicate the attempt', async () => {
    const other = new Error('not for retrying');
    const { attempt, seen } = scripted(other);
    expect(await rejection(withRetries(attempt, policy([])))).toBe(other);
    expect(seen).toEqual([1]);

    const asked: number[] = [];
    const limited = scripted(new Busy(), new Busy(), new Busy());
    const onlyOnce = policy([], {
      retryable: (_, n) => {
        asked.push(n);
        return n < 2;
      },
    });
    expect(await rejection(withRetries(limited.attempt, onlyOnce))).toBeInstanceOf(Busy);
    expect(limited.seen).toEqual([1, 2]);
    expect(asked).toEqual([1, 2]);
  });

  it('waits what the failure asks (its Retry-After) instead of the backoff, 0 included', async () => {
    const { attempt } = scripted(new Busy(7), new Busy(0));
    const events: RetryEvent[] = [];
    await withRetries(attempt, policy(events));
    expect(events.map((e) => e.delayMs)).toEqual([7, 0]);
  });

  it('does not make a wait longer than maxWaitMs: the failure is thrown at once, nothing planned', async () => {
    const tooLong = new Busy(60_000);
    const { attempt, seen } = scripted(tooLong);
    const events: RetryEvent[] = [];
    expect(await rejection(withRetries(attempt, policy(events, { maxWaitMs: 10_000 })))).toBe(tooLong);
    expect(seen).toEqual([1]);
    expect(events).toEqual([]);

    // A function is asked when the wait is due: here, after the attempt used up the time left.
    let leftMs = 10_000;
    const later = scripted(new Busy(5));
    const usingTheTime = (n: number) => {
      leftMs = 4;
      return later.attempt(n);
    };
    expect(await rejection(withRetries(usingTheTime, policy([], { maxWaitMs: () => leftMs })))).toBeInstanceOf(Busy);
    expect(later.seen).toEqual([1]);
  });

  it("ends a wait when the signal aborts, with the signal's reason, and makes no further attempt", async () => {
    const { attempt, seen } = scripted(new Busy(60_000));
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = withRetries(attempt, policy([], { signal: controller.signal, onRetry: () => controller.abort(reason) }));
    expect(await rejection(call)).toBe(reason);
    expect(seen).toEqual([1]);
  });
});

describe('withRetries in the background (unref)', () => {
  it('a retry waiting ten minutes does not keep the process alive', async () => {
    const retry = path.join(ROOT, 'dist/net/retry.js');
    const script = `import { withRetries } from ${JSON.stringify(retry)};
      withRetries(() => Promise.reject(new Error('ledger away')), {
        attempts: Infinity, retryable: () => true, backoff: { baseMs: 600000 }, unref: true,
        onRetry: (event) => console.log('waiting', event.delayMs),
      });`;
    // Ref'd, the wait would hold the child until this guard killed it (a rejection here).
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: scaled(20_000) });
    expect(stdout).toBe('waiting 600000\n');
  });
});

describe('backoffMs', () => {
  it('doubles from baseMs, up to maxMs', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => backoffMs({ baseMs: 2, maxMs: 250 }, n))).toEqual([2, 4, 8, 16, 32, 64, 128, 250, 250]);
    expect(backoffMs({ baseMs: 500 }, 3)).toBe(2000);
  });

  it('adds at most jitterMs at random, so that waits differ', () => {
    const waits = Array.from({ length: 200 }, () => backoffMs({ baseMs: 4, jitterMs: 10 }, 1));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...waits)).toBeLessThan(14);
    expect(new Set(waits).size).toBeGreaterThan(1);
  });
});
