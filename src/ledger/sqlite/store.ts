import type { Database as Db, Statement, Transaction } from 'better-sqlite3';
import { generateKey, keyFingerprint, keyHint } from '../../contract/key.js';
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
import {
  checkDay,
  checkExpiry,
  checkFunding,
  checkLimits,
  checkSample,
  type ExpiryOptions,
} from '../rules.js';
import { LOCK_WAIT_MS, whenUnlocked } from './busy.js';
import { SqliteCalibrations } from './calibrations.js';
import { Checkpointer } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';
import { Charges } from './charges.js';
import { openDatabase } from './database.js';
import { Idempotency } from './idempotency.js';
import { SqliteMetrics } from './metrics.js';
import { SqliteAccounts } from './accounts.js';
import { newId } from './ids.js';
import { HEARTBEAT_MS, ServerLease } from './lease.js';
import { SqliteWeb } from './web.js';

/**
 * Opens the ledger in one SQLite file (created and migrated if needed). The file must
 * be on a local disk: WAL needs shared memory between the processes that use it.
 * Several processes may open it at once (the server and operator commands); only
 * `decide serve` calls `recoverInterrupted`, which takes the file's lease.
 */
export function openSqliteStore(path: string, limits: Limits, options: SqliteStoreOptions = {}): SqliteStore {
  const { expiryMs, sweepIntervalMs } = checkExpiry(options);
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  if (!Number.isSafeInteger(lockWaitMs) || lockWaitMs < 0) throw new Error('lockWaitMs must be an integer ≥ 0.');
  return new SqliteStore(openDatabase(path), checkLimits(limits), { expiryMs, sweepIntervalMs, lockWaitMs });
}

export interface SqliteStoreOptions extends ExpiryOptions {
  /** How long a call waits for a lock held by another process before 503 `ledger_unavailable`; default LOCK_WAIT_MS. */
  lockWaitMs?: number;
}

/**
 * The methods are async to share the `Store` interface with PostgreSQL; underneath,
 * better-sqlite3 is synchronous, so each attempt finishes its transaction before the
 * event loop moves on, and the IMMEDIATE write lock orders it against other
 * processes. Reserves and commits wait for the end of the event loop's turn, to share
 * one transaction with the others of that turn (group-commit.ts). An attempt that meets another process's lock is tried again later
 * (busy.ts), and after LOCK_WAIT_MS the call fails with 503 `ledger_unavailable`.
 */
export class SqliteStore implements Store {
  private readonly charges: Charges;
  private readonly idempotency: Idempotency;
  private readonly web: SqliteWeb;
  private readonly metricsOf: SqliteMetrics;
  private readonly accounts: SqliteAccounts;
  private readonly lease: ServerLease;
  readonly calibrations: SqliteCalibrations;
  private readonly s: Record<string, Statement>;
  // Made once: better-sqlite3 builds four wrapped functions per `db.transaction()` call.
  private readonly transaction: Transaction<(work: () => unknown) => unknown>;
  private readonly timers: NodeJS.Timeout[] = [];
  private checkpointer: Checkpointer | null = null;
  private readonly group: GroupCommit;

  private readonly expiryMs: number;
  private readonly sweepIntervalMs: number;
  private readonly lockWaitMs: number;

  constructor(
    private readonly db: Db,
    limits: Limits,
    /** `expiryMs`: lifetime of a reservation and of a running idempotency record. */
    timing: { expiryMs: number; sweepIntervalMs: number; lockWaitMs: number },
  ) {
    ({ expiryMs: this.expiryMs, sweepIntervalMs: this.sweepIntervalMs, lockWaitMs: this.lockWaitMs } = timing);
    this.charges = new Charges(db, limits, this.expiryMs);
    this.idempotency = new Idempotency(db);
    this.web = new SqliteWeb(db);
    this.metricsOf = new SqliteMetrics(db);
    this.accounts = new SqliteAccounts(db);
    this.lease = new ServerLease(db);
    this.calibrations = new SqliteCalibrations(db, (work) => this.unlocked(work));
    this.transaction = db.transaction((work: () => unknown) => work());
    this.group = new GroupCommit(db, (work) => this.unlocked(work));
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      authenticate: p('SELECT id, pass_id, hint FROM keys WHERE fingerprint = ? AND revoked_at IS NULL'),
      revoke: p('UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hint, revoked_at'),
      freeUsed: p('SELECT used FROM free_usage WHERE key_id = ? AND day = ?'),
      credits: p('SELECT credits FROM passes WHERE id = ?'),
    };
  }

  /**
   * Takes the file for this server (FileInUse when a live server holds it), then gives
   * back what a dead one left: every reservation and running idempotency record.
   * From then on it renews the lease, sweeps expired reservations and checkpoints the
   * WAL in a thread of its own (checkpointer.ts).
   */
  async recoverInterrupted(): Promise<number> {
    const released = await this.write(() => {
      const now = new Date();
      this.lease.claim(now);
      this.idempotency.dropRunning();
      return this.charges.releaseAllReserved(now);
    });
    this.checkpointer ??= new Checkpointer(this.db);
    this.every(HEARTBEAT_MS, () => this.unlocked(() => this.lease.beat(new Date())));
    if (this.sweepIntervalMs > 0) this.every(this.sweepIntervalMs, () => this.sweep());
    return released;
  }

  /** Releases expired reservations and drops lapsed running idempotency records; returns how many reservations. */
  async sweep(): Promise<number> {
    return this.write(() => {
      const now = new Date();
      this.idempotency.dropLapsed(now, this.expiryMs);
      return this.charges.releaseExpired(now);
    });
  }

  /** One statement or transaction, tried again while another process holds the lock. */
  private unlocked<T>(work: () => T): Promise<T> {
    return whenUnlocked(work, this.lockWaitMs);
  }

  /** One IMMEDIATE transaction, tried again while another process holds the lock. */
  private write<T>(work: () => T): Promise<T> {
    return this.unlocked(() => this.transaction.immediate(work) as T);
  }

  /** One read transaction (the figures of one moment), tried again likewise. */
  private read<T>(work: () => T): Promise<T> {
    return this.unlocked(() => this.transaction(work) as T);
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

  async createPass(): Promise<{ passId: string; createdAt: string }> {
    return this.unlocked(() => this.accounts.insertPass(new Date().toISOString()));
  }

  async fundPass(passId: string, credits: number, note?: string): Promise<{ passCredits: number }> {
    checkFunding(credits);
    return this.write(() => this.accounts.fund(passId, credits, note));
  }

  async showPass(passId: string): Promise<PassInfo | null> {
    return this.read(() => this.accounts.show(passId));
  }

  async createKey(passId?: string): Promise<CreatedKey> {
    const key = generateKey();
    const made = { keyId: newId('key'), fingerprint: keyFingerprint(key), hint: keyHint(key), createdAt: new Date().toISOString() };
    // Only the fingerprint and the hint reach the file; the key lives on in the return value alone.
    const linkedPass = await this.write(() => this.accounts.addKey(passId, made));
    return { key, keyId: made.keyId, keyHint: made.hint, passId: linkedPass, createdAt: made.createdAt };
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const row = (await this.unlocked(() => this.s.authenticate.get(fingerprint))) as
      | { id: string; pass_id: string; hint: string }
      | undefined;
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  async revokeKey(keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    const row = (await this.unlocked(() => this.s.revoke.get(now.toISOString(), keyId))) as
      | { hint: string; revoked_at: string }
      | undefined;
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at } : null;
  }

  async usage(caller: Caller, day: string): Promise<{ freeUsed: number; passCredits: number }> {
    checkDay(day);
    return this.read(() => {
      const free = this.s.freeUsed.get(caller.keyId, day) as { used: number } | undefined;
      const pass = this.s.credits.get(caller.passId) as { credits: number } | undefined;
      if (!pass) throw new Error(`Pass ${caller.passId} does not exist.`);
      return { freeUsed: free?.used ?? 0, passCredits: pass.credits };
    });
  }

  async setting(name: string, initial: string): Promise<string> {
    return this.unlocked(() => this.web.setting(name, initial));
  }

  async createPassLimited(request: { ip: string; day: string; perIpLimit: number }): Promise<{ passId: string; createdAt: string } | null> {
    return this.unlocked(() => this.web.createPassLimited(request));
  }

  async createKeyLimited(request: { passId: string; ip: string; day: string; perIpLimit: number }): Promise<CreatedKey | null> {
    return this.unlocked(() => this.web.createKeyLimited(request));
  }

  async revokePassKey(passId: string, keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    return this.unlocked(() => this.web.revokePassKey(passId, keyId, now));
  }

  async passCaller(passId: string, keyId: string): Promise<Caller | null> {
    return this.unlocked(() => this.web.passCaller(passId, keyId));
  }

  async passFreeUsage(passId: string, day: string): Promise<Record<string, number>> {
    return this.unlocked(() => this.web.passFreeUsage(passId, day));
  }

  async reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    checkDay(request.day);
    return this.group.run(() => this.charges.reserve(request, now));
  }

  async commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome> {
    if (settlement) {
      checkDay(settlement.sample.day);
      checkSample(settlement.sample.channel, settlement.sample.ms);
    }
    // One IMMEDIATE transaction (shared with the turn's other decisions, each in its own
    // savepoint): the charge, the sample and the kept answer, or none of them.
    return this.group.run((): CommitOutcome => {
      const { outcome, fresh } = this.charges.settle(reservationId, now, settlement?.units);
      if (!settlement || !fresh) return outcome;
      const { day, channel, ms } = settlement.sample;
      this.metricsOf.record(day, channel, ms, !outcome.charged);
      const body = settlement.answer(outcome, this.metricsOf.api(day));
      if (settlement.idempotency) this.idempotency.finish(settlement.idempotency.keyId, settlement.idempotency.idemKey, 200, body);
      return outcome;
    });
  }

  async release(reservationId: string, now: Date): Promise<void> {
    await this.unlocked(() => this.charges.release(reservationId, now));
  }

  async recordSample(day: string, channel: Channel, ms: number): Promise<void> {
    checkDay(day);
    checkSample(channel, ms);
    await this.unlocked(() => this.metricsOf.record(day, channel, ms, false));
  }

  /** Both channels, always in the order api, web; a channel without samples has zeros. */
  async metrics(day: string): Promise<MetricsRow[]> {
    checkDay(day);
    return this.unlocked(() => this.metricsOf.day(day));
  }

  async beginIdempotent(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    return this.unlocked(() => this.idempotency.begin(keyId, idemKey, requestHash, now));
  }

  async abandonIdempotent(keyId: string, idemKey: string): Promise<void> {
    await this.unlocked(() => this.idempotency.abandon(keyId, idemKey));
  }

  /** Stops the heartbeat and the sweep, gives the lease up (if it can), and closes the file. */
  async close(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
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
