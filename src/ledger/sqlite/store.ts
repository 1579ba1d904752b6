import type { Database as Db, Statement } from 'better-sqlite3';
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
import { CHANNELS, checkDay, checkFunding, checkLimits, checkSample } from '../rules.js';
import { Charges } from './charges.js';
import { openDatabase } from './database.js';
import { Idempotency } from './idempotency.js';
import { newId } from './ids.js';
import { SqliteWeb } from './web.js';

/**
 * Opens the ledger in one SQLite file (created and migrated if needed). The file must
 * be on a local disk: WAL needs shared memory between the processes that use it.
 * Several processes may open it at once (the server and operator commands); only
 * `decide serve` should call `recoverInterrupted`, and one serve per file.
 */
export function openSqliteStore(path: string, limits: Limits): SqliteStore {
  return new SqliteStore(openDatabase(path), checkLimits(limits));
}

/**
 * The methods are async to share the `Store` interface with PostgreSQL; underneath,
 * better-sqlite3 is synchronous, so each call finishes its transaction before the
 * event loop moves on, and the IMMEDIATE write lock orders it against other processes.
 */
export class SqliteStore implements Store {
  private readonly charges: Charges;
  private readonly idempotency: Idempotency;
  private readonly web: SqliteWeb;
  private readonly s: Record<string, Statement>;

  constructor(
    private readonly db: Db,
    limits: Limits,
  ) {
    this.charges = new Charges(db, limits);
    this.idempotency = new Idempotency(db);
    this.web = new SqliteWeb(db);
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      pass: p('SELECT id, credits, funded_ever, created_at FROM passes WHERE id = ?'),
      fund: p('UPDATE passes SET credits = credits + ?, funded_ever = 1 WHERE id = ? RETURNING credits'),
      insertFunding: p('INSERT INTO fundings (id, pass_id, credits, note, created_at) VALUES (?, ?, ?, ?, ?)'),
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES (?, ?, ?, ?, ?)'),
      passKeys: p('SELECT id, hint, created_at, revoked_at FROM keys WHERE pass_id = ? ORDER BY created_at, id'),
      authenticate: p('SELECT id, pass_id, hint FROM keys WHERE fingerprint = ? AND revoked_at IS NULL'),
      revoke: p('UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hint, revoked_at'),
      freeUsed: p('SELECT used FROM free_usage WHERE key_id = ? AND day = ?'),
      credits: p('SELECT credits FROM passes WHERE id = ?'),
      sample: p(`INSERT INTO metrics (day, channel, samples, total_ms) VALUES (?, ?, 1, ?)
                 ON CONFLICT (day, channel) DO UPDATE SET samples = samples + 1, total_ms = total_ms + excluded.total_ms`),
      metrics: p('SELECT channel, samples, total_ms FROM metrics WHERE day = ?'),
      apiMetrics: p(`SELECT samples, total_ms FROM metrics WHERE day = ? AND channel = 'api'`),
    };
  }

  async recoverInterrupted(): Promise<number> {
    const released = this.charges.releaseAllReserved(new Date());
    this.idempotency.dropRunning();
    return released;
  }

  async createPass(): Promise<{ passId: string; createdAt: string }> {
    return this.insertPass(new Date().toISOString());
  }

  async fundPass(passId: string, credits: number, note?: string): Promise<{ passCredits: number }> {
    checkFunding(credits);
    return this.db
      .transaction(() => {
        // The balance and its entry move together or not at all.
        const row = this.s.fund.get(credits, passId) as { credits: number } | undefined;
        if (!row) throw new Error(`Pass ${passId} does not exist.`);
        if (!Number.isSafeInteger(row.credits)) throw new Error('The pass balance would exceed the largest safe integer.');
        this.s.insertFunding.run(newId('fund'), passId, credits, note ?? null, new Date().toISOString());
        return { passCredits: row.credits };
      })
      .immediate();
  }

  async showPass(passId: string): Promise<PassInfo | null> {
    // One read transaction, so the balance and the key list are from the same moment.
    return this.db.transaction((): PassInfo | null => {
      const pass = this.s.pass.get(passId) as
        | { id: string; credits: number; funded_ever: number; created_at: string }
        | undefined;
      if (!pass) return null;
      const keys = this.s.passKeys.all(passId) as {
        id: string;
        hint: string;
        created_at: string;
        revoked_at: string | null;
      }[];
      return {
        passId: pass.id,
        passCredits: pass.credits,
        fundedEver: pass.funded_ever === 1,
        createdAt: pass.created_at,
        keys: keys.map((k) => ({ id: k.id, keyHint: k.hint, createdAt: k.created_at, revokedAt: k.revoked_at })),
      };
    })();
  }

  async createKey(passId?: string): Promise<CreatedKey> {
    const key = generateKey();
    const createdAt = new Date().toISOString();
    const keyId = newId('key');
    const hint = keyHint(key);
    const linkedPass = this.db
      .transaction(() => {
        let target = passId;
        if (target === undefined) target = this.insertPass(createdAt).passId;
        else if (!this.s.pass.get(target)) throw new Error(`Pass ${target} does not exist.`);
        // Only the fingerprint and the hint reach the file; the key lives on in the return value alone.
        this.s.insertKey.run(keyId, target, keyFingerprint(key), hint, createdAt);
        return target;
      })
      .immediate();
    return { key, keyId, keyHint: hint, passId: linkedPass, createdAt };
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const row = this.s.authenticate.get(fingerprint) as { id: string; pass_id: string; hint: string } | undefined;
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  async revokeKey(keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    const row = this.s.revoke.get(now.toISOString(), keyId) as { hint: string; revoked_at: string } | undefined;
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at } : null;
  }

  async usage(caller: Caller, day: string): Promise<{ freeUsed: number; passCredits: number }> {
    checkDay(day);
    return this.db.transaction(() => {
      const free = this.s.freeUsed.get(caller.keyId, day) as { used: number } | undefined;
      const pass = this.s.credits.get(caller.passId) as { credits: number } | undefined;
      if (!pass) throw new Error(`Pass ${caller.passId} does not exist.`);
      return { freeUsed: free?.used ?? 0, passCredits: pass.credits };
    })();
  }

  async setting(name: string, initial: string): Promise<string> {
    return this.web.setting(name, initial);
  }

  async createKeyLimited(request: { passId: string; ip: string; day: string; perIpLimit: number }): Promise<CreatedKey | null> {
    return this.web.createKeyLimited(request);
  }

  async revokePassKey(passId: string, keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null> {
    return this.web.revokePassKey(passId, keyId, now);
  }

  async passCaller(passId: string, keyId: string): Promise<Caller | null> {
    return this.web.passCaller(passId, keyId);
  }

  async passFreeUsage(passId: string, day: string): Promise<Record<string, number>> {
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
    // One IMMEDIATE transaction: the charge, the sample and the kept answer, or none of them.
    return this.db
      .transaction((): CommitOutcome => {
        const { outcome, fresh } = this.charges.settle(reservationId, now);
        if (!settlement || !fresh) return outcome;
        const { day, channel, ms } = settlement.sample;
        this.s.sample.run(day, channel, Math.round(ms));
        const api = this.s.apiMetrics.get(day) as { samples: number; total_ms: number } | undefined;
        const body = settlement.answer(outcome, { channel: 'api', samples: api?.samples ?? 0, totalMs: api?.total_ms ?? 0 });
        if (settlement.idempotency) this.idempotency.finish(settlement.idempotency.keyId, settlement.idempotency.idemKey, 200, body);
        return outcome;
      })
      .immediate();
  }

  async release(reservationId: string, now: Date): Promise<void> {
    this.charges.release(reservationId, now);
  }

  async recordSample(day: string, channel: Channel, ms: number): Promise<void> {
    checkDay(day);
    checkSample(channel, ms);
    this.s.sample.run(day, channel, Math.round(ms));
  }

  /** Both channels, always in the order api, web; a channel without samples has zeros. */
  async metrics(day: string): Promise<MetricsRow[]> {
    checkDay(day);
    const rows = this.s.metrics.all(day) as { channel: Channel; samples: number; total_ms: number }[];
    return CHANNELS.map((channel) => {
      const row = rows.find((r) => r.channel === channel);
      return { channel, samples: row?.samples ?? 0, totalMs: row?.total_ms ?? 0 };
    });
  }

  async beginIdempotent(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    return this.idempotency.begin(keyId, idemKey, requestHash, now);
  }

  async abandonIdempotent(keyId: string, idemKey: string): Promise<void> {
    this.idempotency.abandon(keyId, idemKey);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private insertPass(createdAt: string): { passId: string; createdAt: string } {
    const passId = newId('pass');
    this.s.insertPass.run(passId, createdAt);
    return { passId, createdAt };
  }
}
