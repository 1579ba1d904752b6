import type pg from 'pg';
import { freshKey, newId } from '../ids.js';
import { type Caller, type CreatedKey, KeyNotActive, type Keys, type RevokedKey } from '../keys.js';
import { utcDay } from '../rules.js';
import { prepared, queryAgain, transaction } from './database.js';
import type { KnownKeys } from '../known-keys.js';

const SQL = prepared('keys', {
  insertPass: 'INSERT INTO passes (id, created_at) VALUES ($1, $2)',
  passExists: 'SELECT 1 FROM passes WHERE id = $1',
  insertKey: 'INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ($1, $2, $3, $4, $5)',
  authenticate: 'SELECT id, pass_id, hint FROM keys WHERE fingerprint = $1 AND revoked_at IS NULL',
  live: 'SELECT 1 FROM keys WHERE id = $1 AND revoked_at IS NULL',
  revoke: 'UPDATE keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING hint, revoked_at',
  usage: `SELECT (SELECT used FROM free_usage WHERE key_id = $1 AND day = $2) AS used,
                 (SELECT credits FROM passes WHERE id = $3) AS credits,
                 EXISTS (SELECT 1 FROM keys WHERE id = $1 AND revoked_at IS NULL) AS live`,
});

/** API keys in the PostgreSQL ledger; `authenticate` answers from the keys this server knows when it can (known-keys.ts). */
export class PgKeys implements Keys {
  constructor(
    private readonly pool: pg.Pool,
    private readonly known: KnownKeys,
  ) {}

  async create(now: Date, passId?: string): Promise<CreatedKey> {
    const { fingerprint, ...created } = freshKey(passId ?? newId('pass'), now);
    await transaction(this.pool, async (client) => {
      if (passId === undefined) {
        await client.query(SQL.insertPass, [created.passId, created.createdAt]);
      } else if ((await client.query(SQL.passExists, [passId])).rowCount === 0) {
        throw new Error(`Pass ${passId} does not exist.`);
      }
      // Only the fingerprint and the hint reach the database; the key lives on in the return value alone.
      await client.query(SQL.insertKey, [created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt]);
    });
    return created;
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const known = this.known.get(fingerprint, Date.now());
    if (known) return known;
    const row = (await queryAgain<{ id: string; pass_id: string; hint: string }>(this.pool, SQL.authenticate, [fingerprint]))
      .rows[0];
    if (!row) return null;
    const caller = { keyId: row.id, passId: row.pass_id, keyHint: row.hint };
    this.known.remember(fingerprint, caller, Date.now());
    return caller;
  }

  async isActive(keyId: string): Promise<boolean> {
    return ((await queryAgain(this.pool, SQL.live, [keyId])).rowCount ?? 0) > 0;
  }

  async revoke(keyId: string, now: Date): Promise<RevokedKey | null> {
    const row = (await this.pool.query<{ hint: string; revoked_at: Date }>(SQL.revoke, [now.toISOString(), keyId]))
      .rows[0];
    this.known.forget(keyId);
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at.toISOString() } : null;
  }

  async usage(caller: Caller, now: Date): Promise<{ freeUsed: number; passCredits: number }> {
    const row = (
      await queryAgain<{ used: number | null; credits: number | null; live: boolean }>(this.pool, SQL.usage, [caller.keyId, utcDay(now), caller.passId])
    ).rows[0];
    if (row.credits === null) throw new Error(`Pass ${caller.passId} does not exist.`);
    if (!row.live) throw new KeyNotActive(caller.keyId);
    return { freeUsed: row.used ?? 0, passCredits: row.credits };
  }
}
