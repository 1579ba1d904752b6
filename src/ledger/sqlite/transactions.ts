import type { Database, Transaction } from 'better-sqlite3';
import { whenUnlocked } from './busy.js';
import { GroupCommit } from './group-commit.js';

/**
 * How every SQLite concern reaches the file. better-sqlite3 is synchronous, so each
 * attempt finishes its transaction before the event loop moves on, and the IMMEDIATE
 * write lock orders it against other processes. An attempt that meets another
 * process's lock is tried again later (busy.ts), and after the lock wait the call
 * fails with 503 `ledger_unavailable`. Reserves and commits wait for the end of the
 * event loop's turn, to share one transaction with the others of that turn
 * (group-commit.ts).
 */
export class Transactions {
  // Made once: better-sqlite3 builds four wrapped functions per `db.transaction()` call.
  private readonly transaction: Transaction<(work: () => unknown) => unknown>;
  private readonly group: GroupCommit;

  constructor(
    db: Database,
    private readonly lockWaitMs: number,
  ) {
    this.transaction = db.transaction((work: () => unknown) => work());
    this.group = new GroupCommit(db, (work) => this.unlocked(work));
  }

  /** One statement or transaction, tried again while another process holds the lock. */
  unlocked<T>(work: () => T): Promise<T> {
    return whenUnlocked(work, this.lockWaitMs);
  }

  /** One IMMEDIATE transaction, tried again likewise. */
  write<T>(work: () => T): Promise<T> {
    return this.unlocked(() => this.transaction.immediate(work) as T);
  }

  /** One read transaction (the figures of one moment), tried again likewise. */
  read<T>(work: () => T): Promise<T> {
    return this.unlocked(() => this.transaction(work) as T);
  }

  /** `work` in a savepoint of the IMMEDIATE transaction shared by this turn's reserves and commits. */
  grouped<T>(work: () => T): Promise<T> {
    return this.group.run(work);
  }
}
