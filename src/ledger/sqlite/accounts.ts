import type { Database, Statement } from 'better-sqlite3';
import type { PassInfo } from '../store.js';
import { newId } from './ids.js';

/**
 * Passes, their fundings and their keys: the operator's side of the ledger. Each method
 * runs inside the caller's transaction (store.ts chooses which).
 */
export class SqliteAccounts {
  private readonly s: Record<string, Statement>;

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      pass: p('SELECT id, credits, funded_ever, created_at FROM passes WHERE id = ?'),
      fund: p('UPDATE passes SET credits = credits + ?, funded_ever = 1 WHERE id = ? RETURNING credits'),
      insertFunding: p('INSERT INTO fundings (id, pass_id, credits, note, created_at) VALUES (?, ?, ?, ?, ?)'),
      insertKey: p('INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES (?, ?, ?, ?, ?)'),
      passKeys: p('SELECT id, hint, created_at, revoked_at FROM keys WHERE pass_id = ? ORDER BY created_at, id'),
    };
  }

  insertPass(createdAt: string): { passId: string; createdAt: string } {
    const passId = newId('pass');
    this.s.insertPass.run(passId, createdAt);
    return { passId, createdAt };
  }

  /** The balance and its entry move together (in the caller's IMMEDIATE transaction) or not at all. */
  fund(passId: string, credits: number, note?: string): { passCredits: number } {
    const row = this.s.fund.get(credits, passId) as { credits: number } | undefined;
    if (!row) throw new Error(`Pass ${passId} does not exist.`);
    if (!Number.isSafeInteger(row.credits)) throw new Error('The pass balance would exceed the largest safe integer.');
    this.s.insertFunding.run(newId('fund'), passId, credits, note ?? null, new Date().toISOString());
    return { passCredits: row.credits };
  }

  /** In one read transaction, so the balance and the key list are from the same moment. */
  show(passId: string): PassInfo | null {
    const pass = this.s.pass.get(passId) as { id: string; credits: number; funded_ever: number; created_at: string } | undefined;
    if (!pass) return null;
    const keys = this.s.passKeys.all(passId) as { id: string; hint: string; created_at: string; revoked_at: string | null }[];
    return {
      passId: pass.id,
      passCredits: pass.credits,
      fundedEver: pass.funded_ever === 1,
      createdAt: pass.created_at,
      keys: keys.map((k) => ({ id: k.id, keyHint: k.hint, createdAt: k.created_at, revokedAt: k.revoked_at })),
    };
  }

  /**
   * Stores a key's fingerprint and hint (never the key) on `passId`, or on a new pass
   * when it is undefined; returns the pass.
   */
  addKey(passId: string | undefined, key: { keyId: string; fingerprint: Buffer; hint: string; createdAt: string }): string {
    let target = passId;
    if (target === undefined) target = this.insertPass(key.createdAt).passId;
    else if (!this.s.pass.get(target)) throw new Error(`Pass ${target} does not exist.`);
    this.s.insertKey.run(key.keyId, target, key.fingerprint, key.hint, key.createdAt);
    return target;
  }
}
