import type { Database as Db } from 'better-sqlite3';
import type { Limits, Store } from '../store.js';
import { checkExpiry, checkLimits, type ExpiryOptions } from '../rules.js';
import { DEFAULT_DECISION_RETENTION_DAYS } from '../../config/variables.js';
import { LOCK_WAIT_MS } from './busy.js';
import { SqliteCalibrations } from './calibrations.js';
import { SqliteEvaluations } from './evaluations.js';
import { SqliteCharges } from './charges.js';
import { Checkpointer } from './checkpointer.js';
import { openDatabase } from './database.js';
import { SqliteDecisions } from './decisions.js';
import { SqliteIdempotency } from './idempotency.js';
import { KnownKeys } from '../known-keys.js';
import { LAST_USE_FLUSH_MS, LastUse } from '../last-use.js';
import { SqliteKeys } from './keys.js';
import { HEARTBEAT_MS, ServerLease } from './lease.js';
import { SqliteMetrics } from './metrics.js';
import { SqlitePasses } from './passes.js';
import { Reservations } from './reservations.js';
import { Transactions } from './transactions.js';
import { SqliteWeb } from './web.js';

/**
 * Opens the ledger in one SQLite file (created and migrated if needed). The file must
 * be on a local disk: WAL needs shared memory between the processes that use it.
 * Several processes may open it at once (the server and operator commands); only
 * `decide serve` calls `recoverInterrupted`, which takes the file's lease.
 */
export function openSqliteStore(path: string, limits: Limits, options: SqliteStoreOptions = {}): SqliteStore {
  const { expiryMs, sweepIntervalMs, retentionDays } = checkExpiry(options);
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  if (!Number.isSafeInteger(lockWaitMs) || lockWaitMs < 0) throw new Error('lockWaitMs must be an integer ≥ 0.');
  return new SqliteStore(openDatabase(path), checkLimits(limits), {
    expiryMs,
    sweepIntervalMs,
    retentionDays,
    lockWaitMs,
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    warn: options.warn ?? ((line) => void process.stderr.write(`decide: ${line}\n`)),
  });
}

export interface SqliteStoreOptions extends ExpiryOptions {
  /** How long a call waits for a lock held by another process before 503 `ledger_unavailable`; default LOCK_WAIT_MS. */
  lockWaitMs?: number;
  /** How often a serving process renews the file's lease; default HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** Where the operator is told what they should know (a lost lease); stderr by default. */
  warn?: (line: string) => void;
}

/**
 * The SQLite ledger: one module per concern on one connection (transactions.ts says
 * how each reaches the file), and the upkeep of a serving process: the file's lease,
 * the sweep of what a failed release left, and WAL checkpoints.
 */
export class SqliteStore implements Store {
  readonly keys: SqliteKeys;
  readonly passes: SqlitePasses;
  readonly web: SqliteWeb;
  readonly charges: SqliteCharges;
  readonly idempotency: SqliteIdempotency;
  readonly metrics: SqliteMetrics;
  readonly calibrations: SqliteCalibrations;
  readonly evaluations: SqliteEvaluations;
  readonly decisions: SqliteDecisions;

  private readonly tx: Transactions;
  private readonly reservations: Reservations;
  private readonly lease: ServerLease;
  private readonly timers: NodeJS.Timeout[] = [];
  private checkpointer: Checkpointer | null = null;
  private readonly expiryMs: number;
  private readonly sweepIntervalMs: number;
  private readonly heartbeatMs: number;
  private readonly warn: (line: string) => void;
  /** Why this server takes no new work: its lease was found taken. */
  private leaseLost: string | null = null;

  constructor(
    private readonly db: Db,
    limits: Limits,
    /** `expiryMs`: lifetime of a reservation and of a running idempotency record; `retentionDays`: of a decision log entry (30 when absent). */
    timing: {
      expiryMs: number;
      sweepIntervalMs: number;
      lockWaitMs: number;
      retentionDays?: number;
      heartbeatMs?: number;
      warn?: (line: string) => void;
    },
  ) {
    ({ expiryMs: this.expiryMs, sweepIntervalMs: this.sweepIntervalMs } = timing);
    this.heartbeatMs = timing.heartbeatMs ?? HEARTBEAT_MS;
    this.warn = timing.warn ?? (() => {});
    this.tx = new Transactions(db, timing.lockWaitMs);
    this.reservations = new Reservations(db, limits, this.expiryMs);
    this.lease = new ServerLease(db);
    const known = new KnownKeys();
    this.keys = new SqliteKeys(db, this.tx, known, new LastUse());
    this.passes = new SqlitePasses(db, this.tx);
    this.web = new SqliteWeb(db, this.tx, known);
    this.idempotency = new SqliteIdempotency(db, this.tx);
    this.metrics = new SqliteMetrics(db, this.tx);
    this.decisions = new SqliteDecisions(db, this.tx, timing.retentionDays ?? DEFAULT_DECISION_RETENTION_DAYS);
    this.charges = new SqliteCharges(this.tx, this.reservations, this.metrics, this.idempotency, this.decisions, () => this.leaseLost);
    this.calibrations = new SqliteCalibrations(db, this.tx);
    this.evaluations = new SqliteEvaluations(db, this.tx);
    // Operator commands note no uses: their flush finds nothing and writes nothing.
    this.every(LAST_USE_FLUSH_MS, () => this.keys.flushUse());
  }

  /** Throws unless the file takes a write now: an empty IMMEDIATE transaction takes its write lock and writes nothing. */
  async ping(): Promise<void> {
    await this.tx.write(() => undefined);
  }

  /**
   * Takes the file for this server (FileInUse when a live server holds it), then gives
   * back what a dead one left: every reservation and running idempotency record.
   * From then on it renews the lease, sweeps expired reservations and checkpoints the
   * WAL in a thread of its own (checkpointer.ts).
   */
  async recoverInterrupted(): Promise<number> {
    const released = await this.tx.write(() => {
      const now = new Date();
      this.lease.claim(now);
      this.idempotency.dropRunning();
      return this.reservations.releaseAllReserved(now);
    });
    this.checkpointer ??= new Checkpointer(this.db);
    this.every(this.heartbeatMs, () => this.tx.unlocked(() => this.heartbeat()));
    if (this.sweepIntervalMs > 0) this.every(this.sweepIntervalMs, () => this.sweep());
    return released;
  }

  /**
   * Renews the lease. Found taken (this server fell silent long enough for another to
   * start on the file, which gave back every reservation): two servers must not serve
   * one file, so this one takes no new work from now on (503 on every new reservation)
   * and says why, once; what it has under way settles as usual.
   */
  private heartbeat(): void {
    if (this.leaseLost) return;
    const holder = this.lease.beat(new Date());
    if (!holder) return;
    this.leaseLost = `another decide serve took this SQLite file over (process ${holder.pid} on ${holder.host}, since ${holder.startedAt})`;
    this.warn(`${this.leaseLost}; this server takes no new decisions: stop it (one server per SQLite file)`);
  }

  /**
   * Releases expired reservations, drops lapsed running idempotency records and the
   * decision log's entries past their retention; returns how many reservations.
   */
  async sweep(): Promise<number> {
    return this.tx.write(() => {
      const now = new Date();
      this.idempotency.dropLapsed(now, this.expiryMs);
      this.decisions.forget(now);
      return this.reservations.releaseExpired(now);
    });
  }

  /** Runs `task` every `ms`, one run at a time; a failed run (the file locked) is simply tried again next time. */
  private every(ms: number, task: () => Promise<unknown>): void {
    let running: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      running = running.then(task).catch(() => {});
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops the heartbeat and the sweep, gives the lease up (if it can), and closes the file. */
  async close(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    if (this.db.open) await this.keys.flushUse().catch(() => undefined); // locked elsewhere: those uses are lost, as on a crash
    await this.checkpointer?.stop();
    if (!this.db.open) return;
    try {
      this.lease.give();
    } catch {
      // Locked elsewhere right now: the next start sees this process gone and takes over.
    }
    this.db.close();
  }
}
