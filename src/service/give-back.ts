import { ServiceError } from '../contract/index.js';
import { sleep, withRetries } from '../net/retry.js';

/**
 * What a failed decision gives back (its reservation, its idempotency record) must
 * land even when the ledger cannot be written right now: the file locked by another
 * process, the database briefly away. A give-back that fails is tried again in the
 * background, the pause doubling up to LONGEST_PAUSE_MS, until it lands; so the
 * charge is back within seconds of the ledger returning, not at the next start.
 * Should this process die first, the reservation's expiry (the store's sweep) or the
 * next start gives it back.
 */

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

export class GiveBack {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly warn: (line: string) => void) {}

  /**
   * Tries `task` now and, if it fails, keeps trying in the background; never throws.
   * When the failure being handled says the ledger is unavailable (`failure`), a first
   * try would only wait out the same lock: it goes to the background at once.
   */
  async soon(what: string, task: () => Promise<unknown>, failure?: unknown): Promise<void> {
    if (isLedgerUnavailable(failure)) return this.later(what, task, failure);
    try {
      await task();
    } catch (error) {
      this.later(what, task, error);
    }
  }

  private later(what: string, task: () => Promise<unknown>, cause: unknown): void {
    this.warn(`could not ${what} yet (${(cause as Error)?.message ?? cause}); retrying until the ledger takes it`);
    const retry = this.retry(what, task);
    this.pending.add(retry);
    void retry.finally(() => this.pending.delete(retry));
  }

  /** How many give-backs are still waiting for the ledger. */
  get waiting(): number {
    return this.pending.size;
  }

  private async retry(what: string, task: () => Promise<unknown>): Promise<void> {
    // Unref'd: a process shutting down does not wait for the ledger; expiry covers it.
    await sleep(FIRST_PAUSE_MS, undefined, true);
    await withRetries(task, {
      attempts: Infinity,
      retryable: () => true,
      backoff: { baseMs: 2 * FIRST_PAUSE_MS, maxMs: LONGEST_PAUSE_MS },
      unref: true,
    });
    this.warn(`${what}: done, the ledger took it`);
  }
}

function isLedgerUnavailable(error: unknown): boolean {
  return error instanceof ServiceError && error.code === 'ledger_unavailable';
}
