import type { Database, Statement } from 'better-sqlite3';
import { freshKey, newId } from '../ids.js';
import { parseKeyRef } from '../key-ref.js';
import type { KnownKeys } from '../known-keys.js';
import { type CreatedKey, KeyNotActive, type KeyRecord, type Keys, type RevokedKey } from '../keys.js';
import type { LastUse } from '../last-use.js';
import { checkKeyName } from '../rules.js';
import type { Transactions } from './transactions.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

const RECORD = 'SELECT id, hint, name, pass_id, created_at, last_used_at, revoked_at FROM keys';
interface KeyRow {
  id: string;
  hint: string;
  name: string | null;
  pass_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
const record = (r: KeyRow): KeyRecord => ({
  id: r.id,
  keyHint: r.hint,
  name: r.name,
  passId: r.pass_id,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** API keys in the SQLite ledger; `authenticate` answers from the keys this server knows when it can (known-keys.ts). */
export class SqliteKeys implements Keys {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
    private readonly known: KnownKeys,
    private readonly lastUse: LastUse,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      pass: p('SELECT 1 FROM passes WHERE id = ?'),
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at, name) VALUES (?, ?, ?, ?, ?, ?)'),
      authenticate: p('SELECT id, pass_id, hint FROM keys WHERE fingerprint = ? AND revoked_at IS NULL'),
      revoke: p('UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hint, revoked_at'),
      freeUsed: p('SELECT used FROM free_usage WHERE key_id = ? AND day = ?'),
      live: p('SELECT 1 FROM keys WHERE id = ? AND revoked_at IS NULL'),
      credits: p('SELECT credits FROM passes WHERE id = ?'),
      all: p(`${RECORD} ORDER BY created_at, id`),
      ofPass: p(`${RECORD} WHERE pass_id = ? ORDER BY created_at, id`),
      byId: p(`${RECORD} WHERE id = ?`),
      byHint: p(`${RECORD} WHERE hint = ? ORDER BY created_at, id`),
      used: p('UPDATE keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
    };
  }

  async create(now: Date, passId?: string, name?: string): Promise<CreatedKey> {
    checkKeyName(name);
    const { fingerprint, ...created } = freshKey(passId ?? newId('pass'), now);
    // Only the fingerprint and the hint reach the file; the key lives on in the return value alone.
    await this.tx.write(() => {
      if (passId === undefined) this.s.insertPass.run(created.passId, created.createdAt);
      else if (!this.s.pass.get(passId)) throw new Error(`Pass ${passId} does not exist.`);
      this.s.insertKey.run(created.keyId, created.passId, fingerprint, created.keyHint, created.createdAt, name ?? null);
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

  async list(filter: { passId?: string } = {}): Promise<KeyRecord[]> {
    const rows = await this.tx.unlocked(() => (filter.passId === undefined ? this.s.all.all() : this.s.ofPass.all(filter.passId)));
    return (rows as KeyRow[]).map(record);
  }

  async find(ref: string): Promise<KeyRecord[]> {
    const parsed = parseKeyRef(ref);
    if (!parsed) return [];
    const rows = await this.tx.unlocked(() =>
      'id' in parsed ? [this.s.byId.get(parsed.id)].filter(Boolean) : this.s.byHint.all(parsed.hint),
    );
    return (rows as KeyRow[]).map(record);
  }

  noteUse(keyId: string, now: Date): void {
    this.lastUse.note(keyId, now.getTime());
  }

  async flushUse(): Promise<void> {
    const taken = this.lastUse.take();
    if (taken.length === 0) return;
    try {
      await this.tx.write(() => {
        for (const { keyId, at } of taken) this.s.used.run(at, keyId, at);
      });
    } catch (error) {
      this.lastUse.restore(taken);
      throw error;
    }
  }
}
