import type { Database, Statement } from 'better-sqlite3';
import { freshKey, ipFingerprint, newId } from '../ids.js';
import type { CreatedKey, RevokedKey } from '../keys.js';
import type { KnownKeys } from '../known-keys.js';
import { checkKeyName, checkPerIpLimit, checkSettingName } from '../rules.js';
import { historyDays, usageHistory, type DayUsage, type KeyDayUsage } from '../usage.js';
import type { Web } from '../web.js';
import type { Transactions } from './transactions.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

/**
 * The browser's side of the SQLite ledger: server settings, passes and keys created
 * from a page (each counted per client IP and day), and a pass's own keys. Each write is one
 * IMMEDIATE transaction or one guarded statement, as in reservations.ts.
 */
export class SqliteWeb implements Web {
  private readonly s: Record<string, Statement>;

  constructor(
    private readonly db: Database,
    private readonly tx: Transactions,
    /** This server's known keys (known-keys.ts), which a revocation here forgets at once. */
    private readonly known: KnownKeys,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertSetting: p('INSERT INTO settings (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING'),
      setting: p('SELECT value FROM settings WHERE name = ?'),
      passExists: p('SELECT 1 FROM passes WHERE id = ?'),
      // The first key of a day inserts the counter; later ones pass the guard or change nothing (0 = no limit).
      countKey: p(`INSERT INTO key_creations (ip_fingerprint, day, created) VALUES (@ip, @day, 1)
                   ON CONFLICT (ip_fingerprint, day) DO UPDATE SET created = created + 1
                   WHERE @limit = 0 OR created < @limit`),
      countPass: p(`INSERT INTO pass_creations (ip_fingerprint, day, created) VALUES (@ip, @day, 1)
                    ON CONFLICT (ip_fingerprint, day) DO UPDATE SET created = created + 1
                    WHERE @limit = 0 OR created < @limit`),
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      // A pass that never held a key nor a funding: nothing refers to it, nothing is lost.
      dropEmptyPass: p(`DELETE FROM passes WHERE id = ?
                        AND NOT EXISTS (SELECT 1 FROM keys WHERE pass_id = passes.id)
                        AND NOT EXISTS (SELECT 1 FROM fundings WHERE pass_id = passes.id)`),
      // A replacement (web.ts): a funded pass with keys, none active, none made since @dayStart.
      replaces: p(`SELECT 1 FROM passes p WHERE p.id = @passId AND p.funded_ever = 1
                   AND EXISTS (SELECT 1 FROM keys k WHERE k.pass_id = p.id)
                   AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.pass_id = p.id
                                   AND (k.revoked_at IS NULL OR k.created_at >= @dayStart))`),
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES (?, ?, ?, ?, ?)'),
      revoke: p(`UPDATE keys SET revoked_at = ? WHERE id = ? AND pass_id = ? AND revoked_at IS NULL
                 RETURNING hint, revoked_at`),
      name: p('UPDATE keys SET name = ? WHERE id = ? AND pass_id = ? AND revoked_at IS NULL'),
      caller: p('SELECT id, pass_id, hint FROM keys WHERE id = ? AND pass_id = ? AND revoked_at IS NULL'),
      freeUsage: p(`SELECT f.key_id, f.used FROM free_usage f JOIN keys k ON k.id = f.key_id
                    WHERE k.pass_id = ? AND f.day = ? AND f.used > 0`),
      history: p(`SELECT day, key_id AS keyId,
                    sum(CASE kind WHEN 'free' THEN 1 ELSE 0 END) AS free,
                    sum(CASE kind WHEN 'credits' THEN 1 ELSE 0 END) AS paid,
                    sum(CASE kind WHEN 'credits' THEN cost ELSE 0 END) AS credits
                  FROM charges WHERE pass_id = ? AND state = 'committed' AND day BETWEEN ? AND ?
                  GROUP BY day, key_id ORDER BY day, key_id`),
    };
  }

  async setting(name: string, initial: string, now: Date): Promise<string> {
    checkSettingName(name);
    return this.tx.unlocked(() => {
      this.s.insertSetting.run(name, initial, now.toISOString());
      return (this.s.setting.get(name) as { value: string }).value;
    });
  }

  async createPass(request: { ip: string; perIpLimit: number }, now: Date): Promise<{ passId: string; createdAt: string } | null> {
    checkPerIpLimit(request.perIpLimit);
    const day = utcDay(now);
    const created = { passId: newId('pass'), createdAt: now.toISOString() };
    const transaction = this.db.transaction(() => {
      const counted = this.s.countPass.run({ ip: ipFingerprint(request.ip), day, limit: request.perIpLimit });
      if (counted.changes === 0) return null; // this IP's passes for the day are used up
      this.s.insertPass.run(created.passId, created.createdAt);
      return created;
    });
    return this.tx.unlocked(() => transaction.immediate());
  }

  async createKey(request: { passId: string; ip: string; perIpLimit: number }, now: Date): Promise<CreatedKey | null> {
    checkPerIpLimit(request.perIpLimit);
    const day = utcDay(now);
    const { fingerprint, ...created } = freshKey(request.passId, now);
    const transaction = this.db.transaction((): CreatedKey | null => {
      if (!this.s.passExists.get(request.passId)) throw new Error(`Pass ${request.passId} does not exist.`);
      if (this.s.replaces.get({ passId: request.passId, dayStart: `${day}T00:00:00.000Z` })) {
        this.s.insertKey.run(created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt);
        return created; // not counted against the IP
      }
      const counted = this.s.countKey.run({ ip: ipFingerprint(request.ip), day, limit: request.perIpLimit });
      if (counted.changes === 0) {
        this.s.dropEmptyPass.run(request.passId); // made for this key, it would stay empty
        return null; // this IP's keys for the day are used up
      }
      this.s.insertKey.run(created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt);
      return created;
    });
    return this.tx.unlocked(() => transaction.immediate());
  }

  async revokeKey(passId: string, keyId: string, now: Date): Promise<RevokedKey | null> {
    const row = (await this.tx.unlocked(() => this.s.revoke.get(now.toISOString(), keyId, passId))) as
      | { hint: string; revoked_at: string }
      | undefined;
    this.known.forget(keyId);
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at } : null;
  }

  async nameKey(passId: string, keyId: string, name: string | null): Promise<boolean> {
    checkKeyName(name ?? undefined);
    return (await this.tx.unlocked(() => this.s.name.run(name, keyId, passId))).changes === 1;
  }

  async caller(passId: string, keyId: string): Promise<Caller | null> {
    const row = (await this.tx.unlocked(() => this.s.caller.get(keyId, passId))) as
      | { id: string; pass_id: string; hint: string }
      | undefined;
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  async freeUsage(passId: string, now: Date): Promise<Record<string, number>> {
    const day = utcDay(now);
    const rows = (await this.tx.unlocked(() => this.s.freeUsage.all(passId, day))) as { key_id: string; used: number }[];
    return Object.fromEntries(rows.map((r) => [r.key_id, r.used]));
  }

  async history(passId: string, now: Date): Promise<DayUsage[]> {
    const { first, last } = historyDays(now);
    const rows = (await this.tx.unlocked(() => this.s.history.all(passId, first, last))) as Array<KeyDayUsage & { day: string }>;
    return usageHistory(rows, now);
  }
}
