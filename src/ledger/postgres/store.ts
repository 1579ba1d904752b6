import type pg from 'pg';
import { checkExpiry, checkLimits, type ExpiryOptions } from '../rules.js';
import { DEFAULT_DECISION_RETENTION_DAYS } from '../../config/variables.js';
import type { Limits, Store } from '../store.js';
import { answeringUnavailable } from '../unavailable.js';
import { PgCalibrations } from './calibrations.js';
import { PgEvaluations } from './evaluations.js';
import { PgCharges } from './charges.js';
import { createPool, isConnectionLoss, parsePostgresUrl } from './database.js';
import { PgDecisions } from './decisions.js';
import { PgIdempotency } from './idempotency.js';
import { PgKeys } from './keys.js';
import { KnownKeys } from '../known-keys.js';
import { LAST_USE_FLUSH_MS, LastUse } from '../last-use.js';
import { PgMetrics } from './metrics.js';
import { migrate } from './migrations.js';
import { PgPasses } from './passes.js';
import { PgWeb } from './web.js';

export interface PostgresStoreOptions extends ExpiryOptions {
  /** Connections in the pool; default 10. */
  poolSize?: number;
}

/**
 * Opens the ledger in a PostgreSQL database (`postgres://…`, optionally `?schema=NAME`)
 * and brings its schema up to date; any number of servers and operator commands may
 * do so at once.
 */
export async function openPostgresStore(url: string, limits: Limits, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const checked = checkLimits(limits);
  const { expiryMs, sweepIntervalMs, retentionDays } = checkExpiry(options);
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
  return answering(new PostgresStore(pool, checked, expiryMs, sweepIntervalMs, retentionDays));
}

/** The database away even after the retries of each call: 503, not a 500. */
function answering<S extends object>(concern: S): S {
  return answeringUnavailable(concern, (error) => (isConnectionLoss(error) ? 'the database cannot be reached' : null));
}

/**
 * The `Store` on PostgreSQL, for several `decide serve` processes behind a load
 * balancer: one module per concern on one pool. Every money move is one transaction
 * with row locks and guards (charges.ts); idempotency records, the site's free limits
 * and the metrics live in the shared database, so every server gives the same answers.
 *
 * What a server that dies leaves behind (reservations, running idempotency records)
 * is not released at the next start, since other servers are live: it expires
 * (decision deadline + margin, on the database's clock), and whichever server sweeps
 * first gives it back: each store sweeps every `sweepIntervalMs`, and in
 * `recoverInterrupted`.
 */
export class PostgresStore implements Store {
  readonly keys: PgKeys;
  readonly passes: PgPasses;
  readonly web: PgWeb;
  readonly charges: PgCharges;
  readonly idempotency: PgIdempotency;
  readonly metrics: PgMetrics;
  readonly calibrations: PgCalibrations;
  readonly evaluations: PgEvaluations;
  readonly decisions: PgDecisions;

  private readonly rawCharges: PgCharges;
  private readonly rawIdempotency: PgIdempotency;
  private readonly timer: NodeJS.Timeout | null;
  private readonly useTimer: NodeJS.Timeout;
  private sweeping: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    limits: Limits,
    /** Lifetime of a reservation and of a running idempotency record. */
    readonly expiryMs: number,
    sweepIntervalMs: number,
    /** How long the decision log keeps an entry. */
    retentionDays = DEFAULT_DECISION_RETENTION_DAYS,
  ) {
    this.rawIdempotency = new PgIdempotency(pool, expiryMs);
    const decisions = new PgDecisions(pool, retentionDays);
    this.rawCharges = new PgCharges(pool, limits, expiryMs, this.rawIdempotency, decisions);
    this.decisions = answering(decisions);
    const known = new KnownKeys();
    this.keys = answering(new PgKeys(pool, known, new LastUse()));
    this.passes = answering(new PgPasses(pool));
    this.web = answering(new PgWeb(pool, known));
    this.charges = answering(this.rawCharges);
    this.idempotency = answering(this.rawIdempotency);
    this.metrics = answering(new PgMetrics(pool));
    this.calibrations = answering(new PgCalibrations(pool));
    this.evaluations = answering(new PgEvaluations(pool));
    this.timer =
      sweepIntervalMs > 0
        ? setInterval(() => {
            // One sweep at a time; a failed one (database briefly away) is simply tried again next time.
            this.sweeping = this.sweeping.then(() => this.sweep()).catch(() => {});
          }, sweepIntervalMs)
        : null;
    this.timer?.unref();
    this.useTimer = setInterval(() => void this.keys.flushUse().catch(() => {}), LAST_USE_FLUSH_MS);
    this.useTimer.unref();
  }

  /** Throws unless the database takes writes: reachable, and not a read-only standby or session. */
  async ping(): Promise<void> {
    const { rows } = await this.pool.query<{ writable: boolean }>(
      "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable",
    );
    if (!rows[0]?.writable) throw new Error('the database is read-only (a standby, or default_transaction_read_only is on)');
  }

  /**
   * Releases the reservations, and drops the running idempotency records, whose
   * expiry has passed: those of servers that died. Never those of live servers.
   */
  async recoverInterrupted(): Promise<number> {
    return this.sweep();
  }

  /** Releases expired reservations and running idempotency records, and drops log entries past their retention; returns how many reservations. */
  async sweep(): Promise<number> {
    const released = await this.rawCharges.releaseExpired();
    await this.rawIdempotency.dropLapsed();
    await this.decisions.sweep(new Date());
    return released;
  }

  /** Stops the sweep, lets a running one finish, and ends the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    clearInterval(this.useTimer);
    await this.sweeping;
    await this.keys.flushUse().catch(() => undefined); // the database away: those uses are lost, as on a crash
    await this.pool.end();
  }
}
