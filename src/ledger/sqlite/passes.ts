import type { Database, Statement } from 'better-sqlite3';
import { isIdOf, newId } from '../ids.js';
import type { Passes, PassInfo, PassSummary } from '../passes.js';
import { checkFunding } from '../rules.js';
import type { Transactions } from './transactions.js';

/** Passes and their fundings in the SQLite ledger: the operator's side. */
export class SqlitePasses implements Passes {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertPass: p('INSERT INTO passes (id, created_at) VALUES (?, ?)'),
      pass: p('SELECT id, credits, funded_ever, created_at FROM passes WHERE id = ?'),
      fund: p('UPDATE passes SET credits = credits + ?, funded_ever = 1 WHERE id = ? RETURNING credits'),
      insertFunding: p('INSERT INTO fundings (id, pass_id, credits, note, created_at) VALUES (?, ?, ?, ?, ?)'),
      passKeys: p('SELECT id, hint, created_at, revoked_at FROM keys WHERE pass_id = ? ORDER BY created_at, id'),
      list: p(`SELECT p.id, p.credits, p.funded_ever, p.created_at,
                 (SELECT count(*) FROM keys k WHERE k.pass_id = p.id) AS keys,
                 (SELECT count(*) FROM keys k WHERE k.pass_id = p.id AND k.revoked_at IS NULL) AS active
               FROM passes p ORDER BY p.created_at, p.id`),
    };
  }

  async create(now: Date): Promise<{ passId: string; createdAt: string }> {
    const created = { passId: newId('pass'), createdAt: now.toISOString() };
    await this.tx.unlocked(() => this.s.insertPass.run(created.passId, created.createdAt));
    return created;
  }

  async fund(passId: string, credits: number, now: Date, note?: string): Promise<{ passCredits: number }> {
    checkFunding(credits);
    // The balance and its entry move together (one IMMEDIATE transaction) or not at all.
    return this.tx.write(() => {
      const row = this.s.fund.get(credits, passId) as { credits: number } | undefined;
      if (!row) throw new Error(`Pass ${passId} does not exist.`);
      if (!Number.isSafeInteger(row.credits)) throw new Error('The pass balance would exceed the largest safe integer.');
      this.s.insertFunding.run(newId('fund'), passId, credits, note ?? null, now.toISOString());
      return { passCredits: row.credits };
    });
  }

  /** In one read transaction, so the balance and the key list are from the same moment. */
  async show(passId: string): Promise<PassInfo | null> {
    if (!isIdOf('pass', passId)) return null;
    return this.tx.read(() => {
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
    });
  }

  async list(): Promise<PassSummary[]> {
    const rows = (await this.tx.read(() => this.s.list.all())) as {
      id: string;
      credits: number;
      funded_ever: number;
      created_at: string;
      keys: number;
      active: number;
    }[];
    return rows.map((r) => ({
      passId: r.id,
      passCredits: r.credits,
      fundedEver: r.funded_ever === 1,
      createdAt: r.created_at,
      keys: r.keys,
      activeKeys: r.active,
    }));
  }
}
