import type pg from 'pg';
import { type DecisionEntry, type DecisionLog, type LoggedDecision, retentionCutoff } from '../decisions.js';
import { type DecisionRow, loggedDecision } from '../decision-rows.js';
import { isConnectionLoss, prepared, queryAgain } from './database.js';

const SQL = prepared('decisions', {
  insert: `INSERT INTO decisions (pass_id, key_id, decided_at, door, mode, depth, credits, signal, top, top_probability,
             confidence, question, context, choices, answer)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
  // The id breaks ties of one microsecond: the later insert is the newer decision.
  recent: `SELECT d.decided_at, k.hint AS key_hint, d.door, d.mode, d.depth, d.credits, d.signal, d.top, d.top_probability,
             d.confidence, d.question, d.context, d.choices, d.answer
           FROM decisions d JOIN keys k ON k.id = d.key_id
           WHERE d.pass_id = $1 ORDER BY d.decided_at DESC, d.id DESC LIMIT $2`,
  sweep: 'DELETE FROM decisions WHERE decided_at < $1',
});

/** The decision log in PostgreSQL: `record` runs on the client of a commit's transaction (charges.ts). */
export class PgDecisions implements DecisionLog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly retentionDays: number,
  ) {}

  /**
   * Writes the entry `entry` makes in a savepoint of the commit's transaction; returns
   * null, or the error the entry met, rolled back to the savepoint so that the commit
   * goes on without it (charges.ts `Settlement.logged`). A lost connection is thrown:
   * the whole transaction is gone with it, and the commit's retry sorts it out.
   */
  async record(client: pg.PoolClient, entry: () => DecisionEntry, now: Date): Promise<{ error: unknown } | null> {
    await client.query('SAVEPOINT decision_log');
    try {
      await this.insert(client, entry(), now);
      return null;
    } catch (error) {
      if (isConnectionLoss(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT decision_log');
      return { error };
    }
  }

  private async insert(client: pg.PoolClient, entry: DecisionEntry, now: Date): Promise<void> {
    const { text } = entry;
    await client.query(SQL.insert, [
      entry.passId,
      entry.keyId,
      now.toISOString(),
      entry.door,
      entry.mode,
      entry.depth,
      entry.credits,
      entry.signal,
      entry.top,
      entry.topProbability,
      entry.confidence,
      text?.question ?? null,
      text?.context ?? null,
      text?.choices ? JSON.stringify(text.choices) : null,
      text?.answer ?? null,
    ]);
  }

  async recent(passId: string, limit: number): Promise<LoggedDecision[]> {
    const { rows } = await queryAgain<DecisionRow>(this.pool, SQL.recent, [passId, limit]);
    return rows.map(loggedDecision);
  }

  async sweep(now: Date): Promise<number> {
    const { rowCount } = await queryAgain(this.pool, SQL.sweep, [retentionCutoff(now, this.retentionDays).toISOString()]);
    return rowCount ?? 0;
  }
}
