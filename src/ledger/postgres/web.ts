import type pg from 'pg';
import { freshKey, ipFingerprint, newId } from '../ids.js';
import type { CreatedKey, RevokedKey } from '../keys.js';
import { checkKeyName, checkPerIpLimit, checkSettingName } from '../rules.js';
import { historyDays, usageHistory, type DayUsage, type KeyDayUsage } from '../usage.js';
import type { Web } from '../web.js';
import { transaction } from './database.js';
import type { KnownKeys } from '../known-keys.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

const SQL = {
  insertSetting: 'INSERT INTO settings (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
  setting: 'SELECT value FROM settings WHERE name = $1',
  // Locked first by every key creation on the pass, so that removing an empty pass
  // (below) and adding a key to it never cross.
  lockPass: 'SELECT 1 FROM passes WHERE id = $1 FOR UPDATE',
  countPass: `INSERT INTO pass_creations (ip_fingerprint, day, created) VALUES ($1, $2, 1)
              ON CONFLICT (ip_fingerprint, day) DO UPDATE SET created = pass_creations.created + 1
              WHERE $3::int = 0 OR pass_creations.created < $3::int
              RETURNING created`,
  insertPass: 'INSERT INTO passes (id, created_at) VALUES ($1, $2)',
  dropEmptyPass: `DELETE FROM passes WHERE id = $1
                  AND NOT EXISTS (SELECT 1 FROM keys WHERE pass_id = passes.id)
                  AND NOT EXISTS (SELECT 1 FROM fundings WHERE pass_id = passes.id)`,
  // The first key of a day inserts the counter; later ones pass the guard (re-checked on
  // the latest row under its lock) or change nothing. A limit of 0 means no limit.
  countKey: `INSERT INTO key_creations (ip_fingerprint, day, created) VALUES ($1, $2, 1)
             ON CONFLICT (ip_fingerprint, day) DO UPDATE SET created = key_creations.created + 1
             WHERE $3::int = 0 OR key_creations.created < $3::int
             RETURNING created`,
  // A replacement (web.ts): a funded pass with keys, none active, none made since $2.
  replaces: `SELECT 1 FROM passes p WHERE p.id = $1 AND p.funded_ever AND EXISTS (SELECT 1 FROM keys k WHERE k.pass_id = p.id)
             AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.pass_id = p.id AND (k.revoked_at IS NULL OR k.created_at >= $2::timestamptz))`,
  insertKey: 'INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ($1, $2, $3, $4, $5)',
  revoke: `UPDATE keys SET revoked_at = $1 WHERE id = $2 AND pass_id = $3 AND revoked_at IS NULL
           RETURNING hint, revoked_at`,
  name: 'UPDATE keys SET name = $1 WHERE id = $2 AND pass_id = $3 AND revoked_at IS NULL',
  caller: 'SELECT id, pass_id, hint FROM keys WHERE id = $1 AND pass_id = $2 AND revoked_at IS NULL',
  freeUsage: `SELECT f.key_id, f.used FROM free_usage f JOIN keys k ON k.id = f.key_id
              WHERE k.pass_id = $1 AND f.day = $2 AND f.used > 0`,
  history: `SELECT day::text AS day, key_id AS "keyId",
              count(*) FILTER (WHERE kind = 'free')::int AS free,
              count(*) FILTER (WHERE kind = 'credits')::int AS paid,
              coalesce(sum(cost) FILTER (WHERE kind = 'credits'), 0)::int AS credits
            FROM charges WHERE pass_id = $1 AND state = 'committed' AND day BETWEEN $2::date AND $3::date
            GROUP BY day, key_id ORDER BY day, key_id`,
};

/** The browser's side of the PostgreSQL ledger; the same rules as SQLite's (sqlite/web.ts). */
export class PgWeb implements Web {
  constructor(
    private readonly pool: pg.Pool,
    /** This server's known keys (known-keys.ts), which a revocation here forgets at once. */
    private readonly known: KnownKeys,
  ) {}

  async setting(name: string, initial: string, now: Date): Promise<string> {
    checkSettingName(name);
    // Two statements, not one: the SELECT needs a snapshot taken after a concurrent
    // first writer committed, which READ COMMITTED gives each new statement.
    await this.pool.query(SQL.insertSetting, [name, initial, now.toISOString()]);
    return (await this.pool.query<{ value: string }>(SQL.setting, [name])).rows[0].value;
  }

  async createPass(request: { ip: string; perIpLimit: number }, now: Date): Promise<{ passId: string; createdAt: string } | null> {
    checkPerIpLimit(request.perIpLimit);
    const day = utcDay(now);
    const created = { passId: newId('pass'), createdAt: now.toISOString() };
    return transaction(this.pool, async (client) => {
      const counted = await client.query(SQL.countPass, [ipFingerprint(request.ip), day, request.perIpLimit]);
      if (counted.rowCount === 0) return null; // this IP's passes for the day are used up
      await client.query(SQL.insertPass, [created.passId, created.createdAt]);
      return created;
    });
  }

  async createKey(request: { passId: string; ip: string; perIpLimit: number }, now: Date): Promise<CreatedKey | null> {
    checkPerIpLimit(request.perIpLimit);
    const day = utcDay(now);
    const { fingerprint, ...created } = freshKey(request.passId, now);
    return transaction(this.pool, async (client) => {
      if ((await client.query(SQL.lockPass, [request.passId])).rowCount === 0) {
        throw new Error(`Pass ${request.passId} does not exist.`);
      }
      if ((await client.query(SQL.replaces, [request.passId, `${day}T00:00:00.000Z`])).rowCount) {
        await client.query(SQL.insertKey, [created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt]);
        return created; // not counted against the IP
      }
      const counted = await client.query(SQL.countKey, [ipFingerprint(request.ip), day, request.perIpLimit]);
      if (counted.rowCount === 0) {
        await client.query(SQL.dropEmptyPass, [request.passId]); // made for this key, it would stay empty
        return null; // this IP's keys for the day are used up
      }
      await client.query(SQL.insertKey, [created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt]);
      return created;
    });
  }

  async revokeKey(passId: string, keyId: string, now: Date): Promise<RevokedKey | null> {
    const row = (await this.pool.query<{ hint: string; revoked_at: Date }>(SQL.revoke, [now.toISOString(), keyId, passId])).rows[0];
    this.known.forget(keyId);
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at.toISOString() } : null;
  }

  async nameKey(passId: string, keyId: string, name: string | null): Promise<boolean> {
    checkKeyName(name ?? undefined);
    return (await this.pool.query(SQL.name, [name, keyId, passId])).rowCount === 1;
  }

  async caller(passId: string, keyId: string): Promise<Caller | null> {
    const row = (await this.pool.query<{ id: string; pass_id: string; hint: string }>(SQL.caller, [keyId, passId])).rows[0];
    return row ? { keyId: row.id, passId: row.pass_id, keyHint: row.hint } : null;
  }

  async freeUsage(passId: string, now: Date): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ key_id: string; used: number }>(SQL.freeUsage, [passId, utcDay(now)]);
    return Object.fromEntries(rows.map((r) => [r.key_id, r.used]));
  }

  async history(passId: string, now: Date): Promise<DayUsage[]> {
    const { first, last } = historyDays(now);
    const { rows } = await this.pool.query<KeyDayUsage & { day: string }>(SQL.history, [passId, first, last]);
    return usageHistory(rows, now);
  }
}
