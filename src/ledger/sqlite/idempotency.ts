import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { IdempotencyBegin, IdempotencyRecords } from '../idempotency.js';
import { IDEMPOTENCY_WINDOW_MS } from '../rules.js';
import type { Transactions } from './transactions.js';

export { IDEMPOTENCY_WINDOW_MS };

interface Row {
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  body: string | null;
  created_at: string;
}

/**
 * Idempotency records keyed by (API key, Idempotency-Key header). `begin` runs as one
 * IMMEDIATE transaction so two concurrent retries cannot both see "absent" and both
 * run the decision: exactly one gets `new`, the other `in_progress`.
 */
export class SqliteIdempotency implements IdempotencyRecords {
  private readonly s: Record<string, Statement>;
  // Made once: better-sqlite3 builds four wrapped functions per `db.transaction()` call.
  private readonly beginTx: Transaction<(keyId: string, idemKey: string, requestHash: string, now: Date) => IdempotencyBegin>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      // ISO 8601 UTC strings of one fixed width sort as the instants they name.
      sweep: p('DELETE FROM idempotency WHERE created_at <= ?'),
      get: p('SELECT request_hash, state, status, body, created_at FROM idempotency WHERE key_id = ? AND idem_key = ?'),
      insert: p(`INSERT INTO idempotency (key_id, idem_key, request_hash, state, created_at)
                 VALUES (?, ?, ?, 'running', ?)`),
      finish: p(`UPDATE idempotency SET state = 'done', status = ?, body = ?
                 WHERE key_id = ? AND idem_key = ? AND state = 'running'`),
      abandon: p(`DELETE FROM idempotency WHERE key_id = ? AND idem_key = ? AND state = 'running'`),
      live: p('SELECT 1 FROM keys WHERE id = ? AND revoked_at IS NULL'),
      dropRunning: p(`DELETE FROM idempotency WHERE state = 'running'`),
      dropLapsed: p(`DELETE FROM idempotency WHERE state = 'running' AND created_at <= ?`),
    };
    this.beginTx = db.transaction((keyId: string, idemKey: string, requestHash: string, now: Date) =>
      this.look(keyId, idemKey, requestHash, now),
    );
  }

  async begin(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    return this.tx.unlocked(() => this.beginTx.immediate(keyId, idemKey, requestHash, now));
  }

  private look(keyId: string, idemKey: string, requestHash: string, now: Date): IdempotencyBegin {
    // Revoked by `decide key revoke` beside this server: nothing is kept or replayed for it.
    if (this.s.live.get(keyId) === undefined) return { state: 'revoked' };
    // Expired records count as absent; sweeping them all here also keeps the table
    // from growing without bound, at the cost of one index range scan per request.
    this.s.sweep.run(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString());
    const row = this.s.get.get(keyId, idemKey) as Row | undefined;
    if (!row) {
      this.s.insert.run(keyId, idemKey, requestHash, now.toISOString());
      return { state: 'new' };
    }
    // A different body under the same header is a client bug even while the first runs.
    if (row.request_hash !== requestHash) return { state: 'mismatch' };
    if (row.state === 'running') return { state: 'in_progress' };
    return { state: 'replay', status: row.status as number, body: row.body as string };
  }

  async abandon(keyId: string, idemKey: string): Promise<void> {
    await this.tx.unlocked(() => this.s.abandon.run(keyId, idemKey));
  }

  /** Keeps the answer of a running record; inside the commit's transaction (charges.ts). */
  finish(keyId: string, idemKey: string, status: number, body: string): void {
    this.s.finish.run(status, body, keyId, idemKey);
  }

  /** Drops records of decisions a dead process never finished, so their retries can run. */
  dropRunning(): number {
    return this.s.dropRunning.run().changes;
  }

  /** Drops running records older than `lifetimeMs`: their request ended without giving them up (the file was locked). */
  dropLapsed(now: Date, lifetimeMs: number): number {
    return this.s.dropLapsed.run(new Date(now.getTime() - lifetimeMs).toISOString()).changes;
  }
}
