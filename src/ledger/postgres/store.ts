import type pg from 'pg';
import { generateKey, keyFingerprint, keyHint } from '../../contract/key.js';
import {
  CHANNELS,
  checkDay,
  checkExpiry,
  checkFunding,
  checkLimits,
  checkSample,
  type ExpiryOptions,
  metricsRow,
  type MetricsColumns,
} from '../rules.js';
import { newId } from '../sqlite/ids.js';
import type {
  Caller,
  Channel,
  CommitOutcome,
  CreatedKey,
  IdempotencyBegin,
  Limits,
  MetricsRow,
  PassInfo,
  ReserveOutcome,
  ReserveRequest,
  Settlement,
  Store,
} from '../store.js';
import { PgCalibrations } from './calibrations.js';
import { PgCharges } from './charges.js';
import { createPool, isConnectionLoss, parsePostgresUrl, prepared, queryAgain, transaction } from './database.js';
import { PgIdempotency } from './idempotency.js';
import { migrate } from './migrations.js';
import { commitDecision } from './settle.js';
import { PgWeb } from './web.js';
import { answeringUnavailable } from '../unavailable.js';

export interface PostgresStoreOptions extends ExpiryOptions {
  /** Connections in the pool; default 10. */
  poolSize?: number;
}

/**
 * Opens the ledger in a PostgreSQL database (`postgres://…`, optionally `?schema=NAME`)
 * and brings its schema up to date; any number of servers and operator commands may
 * do so at once.
 */
export async function openPostgresStore(
  url: string,
  limits: Limits,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const checked = checkLimits(limits);
  const { expiryMs, sweepIntervalMs } = checkExpiry(options);
  const poolSize = options.poolSize ?? 10;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) throw new Error('poolSize must be an integer ≥ 1.');
  const location = parsePostgresUrl(url);
  const pool = createPool(location, poolSize);
  try {
    await migrate(pool, location.schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const store = new PostgresStore(pool, checked, expiryMs, sweepIntervalMs);
  // The database away even after the retries below: 503, not a 500.
  return answeringUnavailable(store, (error) => (isConnectionLoss(error) ? 'the database cannot be reached' : null));
}

interface PassRow {
  id: string;
  credits: number;
  funded_ever: boolean;
  created_at: Date;
  keys: { id: string; hint: string; created_at: string; revoked_at: string | null }[];
}

const SQL = prepared('store', {
  insertPass: 'INSERT INTO passes (id, created_at) VALUES ($1, $2)',
  passExists: 'SELECT 1 FROM passes WHERE id = $1',
  // One statement, so the balance and the key list are from the same snapshot.
  showPass: `SELECT p.id, p.credits, p.funded_ever, p.created_at,
               coalesce((SELECT json_agg(json_build_object('id', k.id, 'hint', k.hint,
                                  'created_at', k.created_at, 'revoked_at', k.revoked_at) ORDER BY k.created_at, k.id)
                         FROM keys k WHERE k.pass_id = p.id), '[]'::json) AS keys
             FROM passes p WHERE p.id = $1`,
  fund: 'UPDATE passes SET credits = credits + $1, funded_ever = true WHERE id = $2 RETURNING credits',
  insertFunding: 'INSERT INTO fundings (id, pass_id, credits, note, created_at) VALUES ($1, $2, $3, $4, $5)',
  insertKey: 'INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ($1, $2, $3, $4, $5)',
  authenticate: 'SELECT id, pass_id, hint FROM keys WHERE fingerprint = $1 AND revoked_at IS NULL',
  revoke: 'UPDATE keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING hint, revoked_at',
  usage: `SELECT (SELECT used FROM free_usage WHERE key_id = $1 AND day = $2) AS used,
                 (SELECT credits FROM passes WHERE id = $3) AS credits`,
  sample: `INSERT INTO metrics (day, channel, samples, total_ms, uncharged) VALUES ($1, $2, 1, $3, 0)
           ON CONFLICT (day, channel) DO UPDATE
           SET samples = metrics.samples + 1, total_ms = metrics.total_ms + excluded.total_ms`,
  metrics: 'SELECT channel, samples, total_ms, uncharged FROM metrics WHERE day = $1',
});

/**
 * The `Store` on PostgreSQL, for several `decide serve` processes behind a load
 * balancer. Every money move is one transaction with row locks and guards (see
 * charges.ts); idempotency records, the site's free limits and the metrics live in
 * the shared database, so every server gives the same answers.
 *
 * What a server that dies leaves behind (reservations, running idempotency records)
 * is not released at the next start, since other servers are live: it expires
 * (decision deadline + margin, on the database's clock), and whichever server sweeps
 * first gives it back: each store sweeps every `sweepIntervalMs`, and in
 * `recoverInterrupted`.
 */
export class PostgresStore implements Store {
  private readonly charges: PgCharges;
  private readonly idempotency: PgIdempotency;
  private readonly web: PgWeb;
  readonly calibrations: PgCalibrations;
  private readonly timer: NodeJS.Timeout | null;
  private sweeping: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    limits: Limits,
    /** Lifetime of a reservation and of a running idempotency record. */
    readonly expiryMs: number,
    sweepIntervalMs: number,
  ) {
    this.charges = new PgCharges(pool, limits, expiryMs);
    this.idempotency = new PgIdempotency(pool, expiryMs);
    this.web = new PgWeb(pool);
    this.calibrations = new PgCalibrations(pool);
    this.timer =
      sweepIntervalMs > 0
        ? setInterval(() => {
            // One sweep at a time; a failed one (database briefly away) is simply tried again next time.
            this.sweeping = this.sweeping.then(() => this.sweep()).catch(() => {});
          }, sweepIntervalMs)
        : null;
    this.timer?.unref();
  }

  /**
   * Releases the reservations, and drops the running idempotency records, whose
   * expiry has passed: those of servers that died. Never those of live servers.
   */
  async recoverInterrupted(): Promise<number> {
    return this.sweep();
  }

  /** Releases expired reservations and running idempotency records; returns how many reservations. */
  async sweep(): Promise<number> {
    const released = await this.charges.releaseExpired();
    await this.idempotency.dropLapsed();
    return released;
  }

  async createPass(): Promise<{ passId: string; createdAt: string }> {
    const passId = newId('pass');
    const createdAt = new Date().toISOString();
    await this.pool.query(SQL.insertPass, [passId, createdAt]);
    return { passId, createdAt };
  }

  async fundPass(passId: string, credits: number, note?: string): Promise<{ passCredits: number }> {
    checkFunding(credits);
    return transaction(this.pool, async (client) => {
      // The balance and its entry move together or not at all.
      const row = (await client.query<{ credits: number }>(SQL.fund, [credits, passId])).rows[0];
      if (!row) throw new Error(`Pass ${passId} does not exist.`);
      if (!Number.isSafeInteger(row.credits)) throw new Error('The pass balance would exceed the largest safe integer.');
      await client.query(SQL.insertFunding, [newId('fund'), passId, credits, note ?? null, new Date().toISOString()]);
      return { passCredits: row.credits };
    });
  }

  async showPass(passId: string): Promise<PassInfo | null> {
    const pass = (await queryAgain<PassRow>(this.pool, SQL.showPass, [passId])).rows[0];
    if (!pass) return null;
    return {
      passId: pass.id,
      passCredits: pass.credits,
      fundedEver: pass.funded_ever,
      createdAt: pass.created_at.toISOString(),
      keys: pass.keys.map((k) => ({ id: k.id, keyHint: k.hint, createdAt: iso(k.created_at), revokedAt: k.revoked_at && iso(k.revoked_at) })),
    };
  }

  async createKey(passId?: string): Promise<CreatedKey> {
    const key = generateKey();
    const createdAt = new Date().toISOString();
    const keyId = newId('key');
    const hint = keyHint(key);
    const linkedPass = await transaction(this.pool, async (client) => {
      let target = passId;
      if (target === undefined) {
        target = newId('pass');
        await client.query(SQL.insertPass, [target, createdAt]);
      } else if ((await client.query(SQL.passExists, [target])).rowCount === 0) {
        throw new Error(`Pass ${target} does not exist.`);
      }
      // Only the fingerprint and the hint reach the database; the key lives on in the return value alone.
      await client.query(SQL.insertKey, [keyId, target, keyFingerprint(key), hint, createdAt]);
      return target;
    });
    return { key, keyId, keyHint: hint, passId: linkedPass, createdAt };
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const row = (await queryAgain<{ id: string; pass_id: string; hint: string }>(this.pool, SQL.authenticate, [fingerprint]))
      .rows[0];
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  async revokeKey(keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    const row = (await this.pool.query<{ hint: string; revoked_at: Date }>(SQL.revoke, [now.toISOString(), keyId]))
      .rows[0];
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at.toISOString() } : null;
  }

  async usage(caller: Caller, day: string): Promise<{ freeUsed: number; passCredits: number }> {
    checkDay(day);
    const row = (
      await queryAgain<{ used: number | null; credits: number | null }>(this.pool, SQL.usage, [caller.keyId, day, caller.passId])
    ).rows[0];
    if (row.credits === null) throw new Error(`Pass ${caller.passId} does not exist.`);
    return { freeUsed: row.used ?? 0, passCredits: row.credits };
  }

  setting(name: string, initial: string): Promise<string> {
    return this.web.setting(name, initial);
  }

  createPassLimited(request: { ip: string; day: string; perIpLimit: number }): Promise<{ passId: string; createdAt: string } | null> {
    return this.web.createPassLimited(request);
  }

  createKeyLimited(request: { passId: string; ip: string; day: string; perIpLimit: number }): Promise<CreatedKey | null> {
    return this.web.createKeyLimited(request);
  }

  revokePassKey(passId: string, keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    return this.web.revokePassKey(passId, keyId, now);
  }

  passCaller(passId: string, keyId: string): Promise<Caller | null> {
    return this.web.passCaller(passId, keyId);
  }

  passFreeUsage(passId: string, day: string): Promise<Record<string, number>> {
    return this.web.passFreeUsage(passId, day);
  }

  async reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    checkDay(request.day);
    return this.charges.reserve(request, now);
  }

  async commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome> {
    if (settlement) {
      checkDay(settlement.sample.day);
      checkSample(settlement.sample.channel, settlement.sample.ms);
    }
    return commitDecision(this.pool, this.charges, this.idempotency, { reservationId, now, settlement });
  }

  async release(reservationId: string, now: Date): Promise<void> {
    await this.charges.release(reservationId, now);
  }

  async recordSample(day: string, channel: Channel, ms: number): Promise<void> {
    checkDay(day);
    checkSample(channel, ms);
    await this.pool.query(SQL.sample, [day, channel, Math.round(ms)]);
  }

  /** Both channels, always in the order api, web; a channel without samples has zeros. */
  async metrics(day: string): Promise<MetricsRow[]> {
    checkDay(day);
    const { rows } = await queryAgain<MetricsColumns & { channel: Channel }>(this.pool, SQL.metrics, [day]);
    return CHANNELS.map((channel) => metricsRow(channel, rows.find((r) => r.channel === channel)));
  }

  beginIdempotent(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    return this.idempotency.begin(keyId, idemKey, requestHash, now);
  }

  abandonIdempotent(keyId: string, idemKey: string): Promise<void> {
    return this.idempotency.abandon(keyId, idemKey);
  }

  /** Stops the sweep, lets a running one finish, and ends the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
    await this.pool.end();
  }
}

/** json_build_object writes timestamptz in the session's time zone; the API speaks UTC with milliseconds. */
function iso(text: string): string {
  return new Date(text).toISOString();
}
