import type pg from 'pg';
import type { ChargeRow } from '../rules.js';
import { prepared } from './database.js';

/**
 * The statements of the PostgreSQL money path, shared by reserve.ts (taking) and
 * settle.ts (committing, releasing); charges.ts says how the two fit together.
 */

/**
 * The metrics row of the day and channel that a commit adds its sample to: one of
 * several, chosen by the connection. Concurrent commits on one row would queue on its
 * lock, held until COMMIT; on rows of their own they do not. Readers add the rows up.
 */
export const METRICS_SHARD = 'pg_backend_pid() % 16';

/** A day and channel's figures over all its rows (one row of zeros when it has none yet). */
export const SUMS = `coalesce(sum(samples), 0)::bigint AS samples, coalesce(sum(total_ms), 0)::bigint AS total_ms,
                     coalesce(sum(uncharged), 0)::bigint AS uncharged`;

/**
 * The day's figures after a sample was added: `own` (a CTE returning the row just
 * written) plus the channel's other rows as this statement sees them. No row when
 * `own` has none.
 */
export const DAY_TOTALS_WITH_OWN = `SELECT (own.samples + coalesce(sum(m.samples), 0))::bigint AS samples,
                            (own.total_ms + coalesce(sum(m.total_ms), 0))::bigint AS total_ms,
                            (own.uncharged + coalesce(sum(m.uncharged), 0))::bigint AS uncharged
                     FROM own LEFT JOIN metrics m ON m.day = own.day AND m.channel = own.channel AND m.shard <> own.shard
                     GROUP BY own.shard, own.samples, own.total_ms, own.uncharged`;

/** Every guarded counter write: the first unit of a day inserts the row, later ones pass the guard or change nothing. */
export const SQL = prepared('charges', {
  // The whole of a reserve, in the database (migrations.ts, step 7): one round trip,
  // for a reserve of one unit.
  reserve: 'SELECT outcome, remaining FROM reserve_charge($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
  // A commit with its metrics sample, one statement (its own transaction); no row when
  // the charge was not reserved, and the general path settles it.
  commitWithSample: `WITH settled AS (
                       UPDATE charges SET state = 'committed', settled_at = $2 WHERE id = $1 AND state = 'reserved' RETURNING id
                     ), own AS (
                       INSERT INTO metrics (day, channel, shard, samples, total_ms, uncharged)
                       SELECT $3, $4, ${METRICS_SHARD}, 1, $5, 0 FROM settled
                       ON CONFLICT (day, channel, shard) DO UPDATE SET samples = metrics.samples + 1,
                         total_ms = metrics.total_ms + excluded.total_ms
                       RETURNING day, channel, shard, samples, total_ms, uncharged
                     )
                     ${DAY_TOTALS_WITH_OWN}`,
  channelMetrics: `SELECT ${SUMS} FROM metrics WHERE day = $1 AND channel = $2`,
  // The statement path, for a reserve of several units (a group). NO KEY UPDATE: the
  // row lock that orders every reserve of one pass (and so of its keys), on either
  // path, without blocking inserts elsewhere that merely reference the pass.
  // And whether the caller's key is still active (keys.ts: a reserve checks).
  lockPass: `SELECT credits, funded_ever, EXISTS (SELECT 1 FROM keys WHERE id = $2 AND revoked_at IS NULL) AS live
             FROM passes WHERE id = $1 FOR NO KEY UPDATE`,
  takeKey: `INSERT INTO free_usage (key_id, day, used) VALUES ($1, $2, 1)
            ON CONFLICT (key_id, day) DO UPDATE SET used = free_usage.used + 1 WHERE free_usage.used < $3
            RETURNING used`,
  // A limit of 0 means no limit.
  takeIp: `INSERT INTO ip_usage (ip_fingerprint, day, used) VALUES ($1, $2, 1)
           ON CONFLICT (ip_fingerprint, day) DO UPDATE SET used = ip_usage.used + 1
           WHERE $3::int = 0 OR ip_usage.used < $3::int`,
  takeSite: `INSERT INTO site_usage (day, used) VALUES ($1, 1)
             ON CONFLICT (day) DO UPDATE SET used = site_usage.used + 1
             WHERE $2::int = 0 OR site_usage.used < $2::int`,
  takeCredits: 'UPDATE passes SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING credits',
  insert: `INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at, group_id)
           VALUES ($1, $2, $3, $4, $5, 'reserved', $6, $7, $8,
                   clock_timestamp() + $9::double precision * interval '1 millisecond', $10)`,
  commit: `UPDATE charges SET state = 'committed', settled_at = $2 WHERE id = $1 AND state = 'reserved'`,
  charge: 'SELECT kind, cost, key_id, pass_id, day, state FROM charges WHERE id = $1',
  // Free units first: a commit keeping fewer units than it reserved gives credits back first.
  // Locked, so a sweep releasing the group waits for the commit, or the commit for it.
  group: `SELECT id, kind, key_id, pass_id, day, state FROM charges WHERE group_id = $1
          ORDER BY kind = 'free' DESC, id FOR UPDATE`,
  exists: 'SELECT 1 FROM charges WHERE id = $1 OR group_id = $1 LIMIT 1',
  keyUsed: 'SELECT used FROM free_usage WHERE key_id = $1 AND day = $2',
  credits: 'SELECT credits FROM passes WHERE id = $1',
  // $3: released by expiry, which only an expired reservation can be.
  settleReleased: `UPDATE charges SET state = 'released', settled_at = coalesce($2, clock_timestamp()), expired = $3
                   WHERE (id = $1 OR group_id = $1) AND state = 'reserved' AND (NOT $3 OR expires_at < clock_timestamp())
                   RETURNING kind, cost, key_id, pass_id, day, ip_fingerprint`,
  giveKey: 'UPDATE free_usage SET used = used - 1 WHERE key_id = $1 AND day = $2 AND used > 0',
  giveIp: 'UPDATE ip_usage SET used = used - 1 WHERE ip_fingerprint = $1 AND day = $2 AND used > 0',
  giveSite: 'UPDATE site_usage SET used = used - 1 WHERE day = $1 AND used > 0',
  giveCredits: 'UPDATE passes SET credits = credits + $2 WHERE id = $1',
  // A group's units expire together and are released together, under the group's id.
  expired: `SELECT coalesce(group_id, id) AS id FROM charges WHERE state = 'reserved' AND expires_at < clock_timestamp()
            GROUP BY coalesce(group_id, id) ORDER BY min(expires_at) LIMIT $1`,
});

/** Expired reservations a sweep reads at a time. */
export const SWEEP_BATCH = 200;

export function expectOne(result: pg.QueryResult, what: string): void {
  if (result.rowCount !== 1) throw new Error(`Ledger guard failed on ${what}; the transaction was rolled back.`);
}

/** A charge row as a commit reads it back, with its id and state. */
export type SettledRow = Omit<ChargeRow, 'cost' | 'ip_fingerprint'>;
export type GroupRow = SettledRow & { id: string; state: string };
