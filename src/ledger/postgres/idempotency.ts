import type pg from 'pg';
import { IDEMPOTENCY_WINDOW_MS } from '../rules.js';
import type { IdempotencyBegin, IdempotencyRecords } from '../idempotency.js';
import { isConnectionLoss, queryAgain, transaction } from './database.js';

interface Row {
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  body: string | null;
  created_at: Date;
  /** The running record's lease has run out (database clock): its server died or stalled. */
  lapsed: boolean;
}

const RUNNING_UNTIL = `clock_timestamp() + $5::double precision * interval '1 millisecond'`;

const SQL = {
  // Sweeps records past the 24 h window, skipping those another server is sweeping right now.
  sweep: `DELETE FROM idempotency WHERE (key_id, idem_key) IN (
            SELECT key_id, idem_key FROM idempotency WHERE created_at <= $1 FOR UPDATE SKIP LOCKED)`,
  insert: `INSERT INTO idempotency (key_id, idem_key, request_hash, state, created_at, running_until)
           VALUES ($1, $2, $3, 'running', $4, ${RUNNING_UNTIL})
           ON CONFLICT (key_id, idem_key) DO NOTHING`,
  get: `SELECT request_hash, state, status, body, created_at, running_until < clock_timestamp() AS lapsed
        FROM idempotency WHERE key_id = $1 AND idem_key = $2 FOR UPDATE`,
  replace: `UPDATE idempotency SET request_hash = $3, state = 'running', status = NULL, body = NULL,
              created_at = $4, running_until = ${RUNNING_UNTIL}
            WHERE key_id = $1 AND idem_key = $2`,
  finish: `UPDATE idempotency SET state = 'done', status = $3, body = $4
           WHERE key_id = $1 AND idem_key = $2 AND state = 'running'`,
  abandon: `DELETE FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND state = 'running'`,
  live: 'SELECT 1 FROM keys WHERE id = $1 AND revoked_at IS NULL',
  dropLapsed: `DELETE FROM idempotency WHERE state = 'running' AND running_until < clock_timestamp()`,
};

/**
 * Idempotency records keyed by (API key, Idempotency-Key header), shared by every
 * server. `begin` is one transaction: the insert (`ON CONFLICT DO NOTHING`) lets
 * exactly one of two concurrent retries, on any servers, get `new`; the other locks
 * the existing row and reads it. A `running` record whose lease (`running_until`: the
 * decision deadline plus a margin, on the database's clock) has run out was left by
 * a server that died, and counts as absent, as does any record past the 24 h window.
 */
export class PgIdempotency implements IdempotencyRecords {
  constructor(
    private readonly pool: pg.Pool,
    private readonly leaseMs: number,
  ) {}

  async begin(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    // A COMMIT that lost its connection may have kept the running record. Running the
    // whole step again is safe: it finds that record (then `in_progress`, which lapses
    // like any a dead server left) or none (then `new`), never a second `new`.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.beginOnce(keyId, idemKey, requestHash, now);
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
      }
    }
  }

  private beginOnce(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    const createdAt = now.toISOString();
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
    const params = [keyId, idemKey, requestHash, createdAt, this.leaseMs];
    return transaction(this.pool, async (client): Promise<IdempotencyBegin> => {
      await client.query(SQL.sweep, [cutoff.toISOString()]);
      // Revoked through any server: nothing is kept or replayed for it.
      if ((await client.query(SQL.live, [keyId])).rowCount === 0) return { state: 'revoked' };
      for (;;) {
        if ((await client.query(SQL.insert, params)).rowCount === 1) return { state: 'new' };
        const row = (await client.query<Row>(SQL.get, [keyId, idemKey])).rows[0];
        if (!row) continue; // deleted (abandoned, swept) since the insert saw it: try again
        const expired = row.created_at.getTime() <= cutoff.getTime();
        // A different body under the same header is a client bug even while the first runs.
        if (!expired && row.request_hash !== requestHash) return { state: 'mismatch' };
        if (expired || (row.state === 'running' && row.lapsed)) {
          await client.query(SQL.replace, params);
          return { state: 'new' };
        }
        if (row.state === 'running') return { state: 'in_progress' };
        return { state: 'replay', status: row.status as number, body: row.body as string };
      }
    });
  }

  async finish(keyId: string, idemKey: string, status: number, body: string, client: pg.PoolClient | pg.Pool = this.pool): Promise<void> {
    await client.query(SQL.finish, [keyId, idemKey, status, body]);
  }

  async abandon(keyId: string, idemKey: string): Promise<void> {
    // Guarded by state: running it twice drops nothing more.
    await queryAgain(this.pool, SQL.abandon, [keyId, idemKey]);
  }

  /** Drops running records whose lease ran out (their servers died), so their retries can run. */
  async dropLapsed(): Promise<number> {
    return (await this.pool.query(SQL.dropLapsed)).rowCount ?? 0;
  }
}
