import type { Database, Transaction } from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  outcome?: { value: unknown } | { error: unknown };
}

/**
 * Group commit: the ledger writes asked for in one turn of the event loop (the
 * reserves and commits of concurrent decisions) go into one IMMEDIATE transaction,
 * each in a savepoint of its own. One BEGIN and one COMMIT for the lot, and a page
 * that several of them change (the pass, the charges' last page, the day's metrics) is
 * written to the WAL once rather than once each.
 *
 * The books are as if they ran one after another, which is what they did: same
 * connection, same order, each seeing the ones before it. A write that fails on its
 * own (a guard, a CHECK, its caller's callback) rolls back its savepoint and fails
 * alone. One that takes the whole transaction down (the disk, SQLite rolling back)
 * fails every write of the group, and nothing of it is written: each caller gives back
 * what its decision held, as it would after a failed transaction of its own. A lock
 * held by another process makes `unlocked` run the whole group again later.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private readonly group: Transaction<(batch: Pending[]) => void>;
  private readonly savepoint: Transaction<(work: () => unknown) => unknown>;

  constructor(
    private readonly db: Database,
    private readonly unlocked: <T>(work: () => T) => Promise<T>,
  ) {
    // Inside a transaction, better-sqlite3 runs a transaction function as a savepoint.
    this.savepoint = db.transaction((work: () => unknown) => work());
    this.group = db.transaction((batch: Pending[]) => {
      // Alone, a write needs no savepoint: its failure rolls back the transaction, which is all its own.
      if (batch.length === 1) {
        batch[0].outcome = { value: batch[0].work() };
        return;
      }
      for (const item of batch) {
        try {
          item.outcome = { value: this.savepoint(item.work) };
        } catch (error) {
          if (!this.db.inTransaction) throw error; // SQLite gave up the whole transaction
          item.outcome = { error };
        }
      }
    });
  }

  /** Runs `work` (synchronous) in the next group; settles once the group is committed or has failed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      await this.unlocked(() => this.group.immediate(batch));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const { outcome, resolve, reject } of batch) {
      if (outcome && 'value' in outcome) resolve(outcome.value);
      else reject(outcome?.error);
    }
  }
}
