import type { Database, Statement, Transaction } from 'better-sqlite3';
import { type DecisionEntry, type DecisionLog, type LoggedDecision, retentionCutoff } from '../decisions.js';
import type { Transactions } from './transactions.js';
import { type DecisionRow, loggedDecision } from '../decision-rows.js';

/** The decision log in the SQLite file: `record` runs inside a commit's transaction (charges.ts). */
export class SqliteDecisions implements DecisionLog {
  private readonly s: Record<string, Statement>;
  private readonly savepoint: Transaction<(work: () => void) => void>;

  constructor(
    private readonly db: Database,
    private readonly tx: Transactions,
    private readonly retentionDays: number,
  ) {
    // Inside a transaction, better-sqlite3 runs a transaction function as a savepoint.
    this.savepoint = db.transaction((work: () => void) => work());
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insert: p(`INSERT INTO decisions (pass_id, key_id, decided_at, door, mode, depth, credits, signal, top, top_probability,
                   confidence, question, context, choices, answer)
                 VALUES (@passId, @keyId, @decidedAt, @door, @mode, @depth, @credits, @signal, @top, @topProbability,
                   @confidence, @question, @context, @choices, @answer)`),
      // The id breaks ties of one millisecond: the later insert is the newer decision.
      recent: p(`SELECT d.decided_at, k.hint AS key_hint, d.door, d.mode, d.depth, d.credits, d.signal, d.top, d.top_probability,
                   d.confidence, d.question, d.context, d.choices, d.answer
                 FROM decisions d JOIN keys k ON k.id = d.key_id
                 WHERE d.pass_id = ? ORDER BY d.decided_at DESC, d.id DESC LIMIT ?`),
      sweep: p('DELETE FROM decisions WHERE decided_at < ?'),
    };
  }

  /**
   * Writes the entry `entry` makes in a savepoint of the commit's transaction (the
   * caller holds it); returns null, or the error the entry met, rolled back to the
   * savepoint so that the commit goes on without it (charges.ts `Settlement.logged`).
   * An error after which SQLite gave up the whole transaction is thrown.
   */
  record(entry: () => DecisionEntry, now: Date): { error: unknown } | null {
    try {
      this.savepoint(() => this.insert(entry(), now));
      return null;
    } catch (error) {
      if (!this.db.inTransaction) throw error;
      return { error };
    }
  }

  private insert(entry: DecisionEntry, now: Date): void {
    const { text, ...meta } = entry;
    this.s.insert.run({
      ...meta,
      decidedAt: now.toISOString(),
      question: text?.question ?? null,
      context: text?.context ?? null,
      choices: text?.choices ? JSON.stringify(text.choices) : null,
      answer: text?.answer ?? null,
    });
  }

  async recent(passId: string, limit: number): Promise<LoggedDecision[]> {
    const rows = await this.tx.read(() => this.s.recent.all(passId, limit) as DecisionRow[]);
    return rows.map(loggedDecision);
  }

  async sweep(now: Date): Promise<number> {
    return this.tx.write(() => this.forget(now));
  }

  /** The sweep's delete, inside the caller's transaction (the store's periodic sweep shares one). */
  forget(now: Date): number {
    // ISO 8601 UTC strings of one fixed width sort as the instants they name.
    return this.s.sweep.run(retentionCutoff(now, this.retentionDays).toISOString()).changes;
  }
}
