import type { Database, Statement } from 'better-sqlite3';
import { checkDay, checkPerIpLimit, checkSettingName } from '../rules.js';
import type { Caller, CreatedKey } from '../store.js';
import { freshKey, ipFingerprint, newId } from './ids.js';

/**
 * The browser's side of the SQLite ledger: server settings, passes and keys created
 * from a page (each counted per client IP and day), and a pass's own keys. Each write is one
 * IMMEDIATE transaction or one guarded statement, as in charges.ts.
 */
export class SqliteWeb {
  private readonly s: Record<string, Statement>;

  constructor(private readonly db: Database) {
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
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES (?, ?, ?, ?, ?)'),
      revoke: p(`UPDATE keys SET revoked_at = ? WHERE id = ? AND pass_id = ? AND revoked_at IS NULL
                 RETURNING hint, revoked_at`),
      caller: p('SELECT id, pass_id, hint FROM keys WHERE id = ? AND pass_id = ? AND revoked_at IS NULL'),
      freeUsage: p(`SELECT f.key_id, f.used FROM free_usage f JOIN keys k ON k.id = f.key_id
                    WHERE k.pass_id = ? AND f.day = ? AND f.used > 0`),
    };
  }

  setting(name: string, initial: string): string {
    checkSettingName(name);
    this.s.insertSetting.run(name, initial, new Date().toISOString());
    return (this.s.setting.get(name) as { value: string }).value;
  }

  createPassLimited(request: { ip: string; day: string; perIpLimit: number }): { passId: string; createdAt: string } | null {
    checkDay(request.day);
    checkPerIpLimit(request.perIpLimit);
    const created = { passId: newId('pass'), createdAt: new Date().toISOString() };
    return this.db
      .transaction(() => {
        const counted = this.s.countPass.run({ ip: ipFingerprint(request.ip), day: request.day, limit: request.perIpLimit });
        if (counted.changes === 0) return null; // this IP's passes for the day are used up
        this.s.insertPass.run(created.passId, created.createdAt);
        return created;
      })
      .immediate();
  }

  createKeyLimited(request: { passId: string; ip: string; day: string; perIpLimit: number }): CreatedKey | null {
    checkDay(request.day);
    checkPerIpLimit(request.perIpLimit);
    const { fingerprint, ...created } = freshKey(request.passId);
    return this.db
      .transaction((): CreatedKey | null => {
        if (!this.s.passExists.get(request.passId)) throw new Error(`Pass ${request.passId} does not exist.`);
        const counted = this.s.countKey.run({ ip: ipFingerprint(request.ip), day: request.day, limit: request.perIpLimit });
        if (counted.changes === 0) {
          this.s.dropEmptyPass.run(request.passId); // made for this key, it would stay empty
          return null; // this IP's keys for the day are used up
        }
        this.s.insertKey.run(created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt);
        return created;
      })
      .immediate();
  }

  revokePassKey(passId: string, keyId: string, now: Date): { keyHint: string; revokedAt: string } | null {
    const row = this.s.revoke.get(now.toISOString(), keyId, passId) as { hint: string; revoked_at: string } | undefined;
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at } : null;
  }

  passCaller(passId: string, keyId: string): Caller | null {
    const row = this.s.caller.get(keyId, passId) as { id: string; pass_id: string; hint: string } | undefined;
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  passFreeUsage(passId: string, day: string): Record<string, number> {
    checkDay(day);
    const rows = this.s.freeUsage.all(passId, day) as { key_id: string; used: number }[];
    return Object.fromEntries(rows.map((r) => [r.key_id, r.used]));
  }
}
