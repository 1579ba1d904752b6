import type pg from 'pg';
import { freshKey, newId } from '../ids.js';
import { parseKeyRef } from '../key-ref.js';
import { type CreatedKey, KeyNotActive, type KeyRecord, type Keys, type RevokedKey } from '../keys.js';
import type { LastUse } from '../last-use.js';
import { checkKeyName } from '../rules.js';
import { prepared, queryAgain, transaction } from './database.js';
import type { KnownKeys } from '../known-keys.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

const RECORD = 'SELECT id, hint, name, pass_id, created_at, last_used_at, revoked_at FROM keys';
const SQL = prepared('keys', {
  insertPass: 'INSERT INTO passes (id, created_at) VALUES ($1, $2)',
  passExists: 'SELECT 1 FROM passes WHERE id = $1',
  insertKey: 'INSERT INTO keys (id, pass_id, fingerprint, hint, created_at, name) VALUES ($1, $2, $3, $4, $5, $6)',
  authenticate: 'SELECT id, pass_id, hint FROM keys WHERE fingerprint = $1 AND revoked_at IS NULL',
  live: 'SELECT 1 FROM keys WHERE id = $1 AND revoked_at IS NULL',
  revoke: 'UPDATE keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING hint, revoked_at',
  usage: `SELECT (SELECT used FROM free_usage WHERE key_id = $1 AND day = $2) AS used,
                 (SELECT credits FROM passes WHERE id = $3) AS credits,
                 EXISTS (SELECT 1 FROM keys WHERE id = $1 AND revoked_at IS NULL) AS live`,
  all: `${RECORD} ORDER BY created_at, id`,
  ofPass: `${RECORD} WHERE pass_id = $1 ORDER BY created_at, id`,
  byId: `${RECORD} WHERE id = $1`,
  byHint: `${RECORD} WHERE hint = $1 ORDER BY created_at, id`,
  // One statement for every key used since the last write; a later time never goes back.
  used: `UPDATE keys SET last_used_at = u.at
           FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at)
          WHERE keys.id = u.id AND (keys.last_used_at IS NULL OR keys.last_used_at < u.at)`,
});

interface KeyRow {
  id: string;
  hint: string;
  name: string | null;
  pass_id: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}
const record = (r: KeyRow): KeyRecord => ({
  id: r.id,
  keyHint: r.hint,
  name: r.name,
  passId: r.pass_id,
  createdAt: r.created_at.toISOString(),
  lastUsedAt: r.last_used_at?.toISOString() ?? null,
  revokedAt: r.revoked_at?.toISOString() ?? null,
});

/** API keys in the PostgreSQL ledger; `authenticate` answers from the keys this server knows when it can (known-keys.ts). */
export class PgKeys implements Keys {
  constructor(
    private readonly pool: pg.Pool,
    private readonly known: KnownKeys,
    private readonly lastUse: LastUse,
  ) {}

  async create(now: Date, passId?: string, name?: string): Promise<CreatedKey> {
    checkKeyName(name);
    const { fingerprint, ...created } = freshKey(passId ?? newId('pass'), now);
    await transaction(this.pool, async (client) => {
      if (passId === undefined) {
        await client.query(SQL.insertPass, [created.passId, created.createdAt]);
      } else if ((await client.query(SQL.passExists, [passId])).rowCount === 0) {
        throw new Error(`Pass ${passId} does not exist.`);
      }
      // Only the fingerprint and the hint reach the database; the key lives on in the return value alone.
      await client.query(SQL.insertKey, [created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt, name ?? null]);
    });
    return created;
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const known = this.known.get(fingerprint, Date.now());
    if (known) return known;
    const row = (await queryAgain<{ id: string; pass_id: string; hint: string }>(this.pool, SQL.authenticate, [fingerprint])).rows[0];
    if (!row) return null;
    const caller = { keyId: row.id, passId: row.pass_id, keyHint: row.hint };
    this.known.remember(fingerprint, caller, Date.now());
    return caller;
  }

  async isActive(keyId: string): Promise<boolean> {
    return ((await queryAgain(this.pool, SQL.live, [keyId])).rowCount ?? 0) > 0;
  }

  async revoke(keyId: string, now: Date): Promise<RevokedKey | null> {
    const row = (await this.pool.query<{ hint: string; revoked_at: Date }>(SQL.revoke, [now.toISOString(), keyId])).rows[0];
    this.known.forget(keyId);
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at.toISOString() } : null;
  }

  async usage(caller: Caller, now: Date): Promise<{ freeUsed: number; passCredits: number }> {
    const row = (
      await queryAgain<{ used: number | null; credits: number | null; live: boolean }>(this.pool, SQL.usage, [
        caller.keyId,
        utcDay(now),
        caller.passId,
      ])
    ).rows[0];
    if (row.credits === null) throw new Error(`Pass ${caller.passId} does not exist.`);
    if (!row.live) throw new KeyNotActive(caller.keyId);
    return { freeUsed: row.used ?? 0, passCredits: row.credits };
  }

  async list(filter: { passId?: string } = {}): Promise<KeyRecord[]> {
    const result =
      filter.passId === undefined
        ? await queryAgain<KeyRow>(this.pool, SQL.all, [])
        : await queryAgain<KeyRow>(this.pool, SQL.ofPass, [filter.passId]);
    return result.rows.map(record);
  }

  async find(ref: string): Promise<KeyRecord[]> {
    const parsed = parseKeyRef(ref);
    if (!parsed) return [];
    const result =
      'id' in parsed
        ? await queryAgain<KeyRow>(this.pool, SQL.byId, [parsed.id])
        : await queryAgain<KeyRow>(this.pool, SQL.byHint, [parsed.hint]);
    return result.rows.map(record);
  }

  noteUse(keyId: string, now: Date): void {
    this.lastUse.note(keyId, now.getTime());
  }

  async flushUse(): Promise<void> {
    const taken = this.lastUse.take();
    if (taken.length === 0) return;
    try {
      await this.pool.query(SQL.used, [taken.map((t) => t.keyId), taken.map((t) => t.at)]);
    } catch (error) {
      this.lastUse.restore(taken);
      throw error;
    }
  }
}
