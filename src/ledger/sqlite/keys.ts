import type { Database, Statement } from 'better-sqlite3';
import { freshKey, newId } from '../ids.js';
import type { KnownKeys } from '../known-keys.js';
import { type Caller, type CreatedKey, KeyNotActive, type Keys, type RevokedKey } from '../keys.js';
import { utcDay } from '../rules.js';
import type { Transactions } from './transactions.js';

/** API keys in the SQLite ledger; `authenticate` answers from the keys this server knows when it can (known-keys.ts). */
export class SqliteKeys implements Keys {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
    private readonly known: KnownKeys,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      pass: p('SELECT 1 FROM passes WHERE id = ?'),
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES (?, ?, ?, ?, ?)'),
      authenticate: p('SELECT id, pass_id, hint FROM keys WHERE fingerprint = ? AND revoked_at IS NULL'),
      revoke: p('UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hint, revoked_at'),
      freeUsed: p('SELECT used FROM free_usage WHERE key_id = ? AND day = ?'),
      live: p('SELECT 1 FROM keys WHERE id = ? AND revoked_at IS NULL'),
      credits: p('SELECT credits FROM passes WHERE id = ?'),
    };
  }

  async create(now: Date, passId?: string): Promise<CreatedKey> {
    const { fingerprint, ...created } = freshKey(passId ?? newId('pass'), now);
    // Only the fingerprint and the hint reach the file; the key lives on in the return value alone.
    await this.tx.write(() => {
      if (passId === undefined) this.s.insertPass.run(created.passId, created.createdAt);
      else if (!this.s.pass.get(passId)) throw new Error(`Pass ${passId} does not exist.`);
      this.s.insertKey.run(created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt);
    });
    return created;
  }

  async authenticate(fingerprint: Buffer): Promise<Caller | null> {
    const known = this.known.get(fingerprint, Date.now());
    if (known) return known;
    const row = (await this.tx.unlocked(() => this.s.authenticate.get(fingerprint))) as
      | { id: string; pass_id: string; hint: string }
      | undefined;
    if (!row) return null;
    const caller = { keyId: row.id, passId: row.pass_id, keyHint: row.hint };
    this.known.remember(fingerprint, caller, Date.now());
    return caller;
  }

  async isActive(keyId: string): Promise<boolean> {
    return (await this.tx.unlocked(() => this.s.live.get(keyId))) !== undefined;
  }

  async revoke(keyId: string, now: Date): Promise<RevokedKey | null> {
    const row = (await this.tx.unlocked(() => this.s.revoke.get(now.toISOString(), keyId))) as
      | { hint: string; revoked_at: string }
      | undefined;
    this.known.forget(keyId);
    return row ? { keyHint: row.hint, revokedAt: row.revoked_at } : null;
  }

  async usage(caller: Caller, now: Date): Promise<{ freeUsed: number; passCredits: number }> {
    const day = utcDay(now);
    return this.tx.read(() => {
      if (!this.s.live.get(caller.keyId)) throw new KeyNotActive(caller.keyId);
      const free = this.s.freeUsed.get(caller.keyId, day) as { used: number } | undefined;
      const pass = this.s.credits.get(caller.passId) as { credits: number } | undefined;
      if (!pass) throw new Error(`Pass ${caller.passId} does not exist.`);
      return { freeUsed: free?.used ?? 0, passCredits: pass.credits };
    });
  }
}
