import type pg from 'pg';
import { isIdOf, newId } from '../ids.js';
import type { Passes, PassInfo, PassSummary } from '../passes.js';
import { checkFunding } from '../rules.js';
import { prepared, queryAgain, transaction } from './database.js';

const SQL = prepared('passes', {
  insertPass: 'INSERT INTO passes (id, created_at) VALUES ($1, $2)',
  // One statement, so the balance and the key list are from the same snapshot.
  showPass: `SELECT p.id, p.credits, p.funded_ever, p.created_at,
               coalesce((SELECT json_agg(json_build_object('id', k.id, 'hint', k.hint,
                                  'created_at', k.created_at, 'revoked_at', k.revoked_at) ORDER BY k.created_at, k.id)
                         FROM keys k WHERE k.pass_id = p.id), '[]'::json) AS keys
             FROM passes p WHERE p.id = $1`,
  fund: 'UPDATE passes SET credits = credits + $1, funded_ever = true WHERE id = $2 RETURNING credits',
  insertFunding: 'INSERT INTO fundings (id, pass_id, credits, note, created_at) VALUES ($1, $2, $3, $4, $5)',
  list: `SELECT p.id, p.credits, p.funded_ever, p.created_at,
            (SELECT count(*)::int FROM keys k WHERE k.pass_id = p.id) AS keys,
            (SELECT count(*)::int FROM keys k WHERE k.pass_id = p.id AND k.revoked_at IS NULL) AS active
          FROM passes p ORDER BY p.created_at, p.id`,
});

interface PassRow {
  id: string;
  credits: number;
  funded_ever: boolean;
  created_at: Date;
  keys: { id: string; hint: string; created_at: string; revoked_at: string | null }[];
}

/** Passes and their fundings in the PostgreSQL ledger: the operator's side. */
export class PgPasses implements Passes {
  constructor(private readonly pool: pg.Pool) {}

  async create(now: Date): Promise<{ passId: string; createdAt: string }> {
    const created = { passId: newId('pass'), createdAt: now.toISOString() };
    await this.pool.query(SQL.insertPass, [created.passId, created.createdAt]);
    return created;
  }

  async fund(passId: string, credits: number, now: Date, note?: string): Promise<{ passCredits: number }> {
    checkFunding(credits);
    return transaction(this.pool, async (client) => {
      // The balance and its entry move together or not at all.
      const row = (await client.query<{ credits: number }>(SQL.fund, [credits, passId])).rows[0];
      if (!row) throw new Error(`Pass ${passId} does not exist.`);
      if (!Number.isSafeInteger(row.credits)) throw new Error('The pass balance would exceed the largest safe integer.');
      await client.query(SQL.insertFunding, [newId('fund'), passId, credits, note ?? null, now.toISOString()]);
      return { passCredits: row.credits };
    });
  }

  async show(passId: string): Promise<PassInfo | null> {
    if (!isIdOf('pass', passId)) return null;
    const pass = (await queryAgain<PassRow>(this.pool, SQL.showPass, [passId])).rows[0];
    if (!pass) return null;
    return {
      passId: pass.id,
      passCredits: pass.credits,
      fundedEver: pass.funded_ever,
      createdAt: pass.created_at.toISOString(),
      keys: pass.keys.map((k) => ({
        id: k.id,
        keyHint: k.hint,
        createdAt: iso(k.created_at),
        revokedAt: k.revoked_at && iso(k.revoked_at),
      })),
    };
  }

  async list(): Promise<PassSummary[]> {
    const { rows } = await queryAgain<PassListRow>(this.pool, SQL.list);
    return rows.map((r) => ({
      passId: r.id,
      passCredits: r.credits,
      fundedEver: r.funded_ever,
      createdAt: r.created_at.toISOString(),
      keys: r.keys,
      activeKeys: r.active,
    }));
  }
}

export interface PassListRow {
  id: string;
  credits: number;
  funded_ever: boolean;
  created_at: Date;
  keys: number;
  active: number;
}

/** json_build_object writes timestamptz in the session's time zone; the API speaks UTC with milliseconds. */
function iso(text: string): string {
  return new Date(text).toISOString();
}
