import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Caller, Limits } from '../../src/ledger/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/ledger/sqlite/store.js';

export const DAY = '2026-11-22';
export const NEXT_DAY = '2026-11-23';
export const NOW = new Date('2026-11-22T10:00:00.000Z');
export const IP = '203.0.113.7';

export const LIMITS: Limits = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };

/** A fresh folder for one test's database; removed by `cleanup`. */
export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'decide-ledger-'));
}

export function cleanup(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function dbPath(dir: string): string {
  return path.join(dir, 'ledger.db');
}

export function open(dir: string, limits: Partial<Limits> = {}): SqliteStore {
  return openSqliteStore(dbPath(dir), { ...LIMITS, ...limits });
}

/** A key on a new pass, and its caller as `authenticate` would give it. */
export async function newCaller(store: SqliteStore, passId?: string): Promise<Caller> {
  const created = await store.createKey(passId);
  return { keyId: created.keyId, passId: created.passId, keyHint: created.keyHint };
}

/** Reads the file through its own connection, as an auditor would. */
export function inspect<T>(dir: string, read: (db: Database.Database) => T): T {
  const db = new Database(dbPath(dir), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/**
 * Checks the ledger's books, returning every violation found (empty when balanced):
 * - per pass: Σ fundings − Σ credits charges reserved or committed = balance;
 * - each free counter (per key, per IP, per site and day) = its free charges that are
 *   reserved or committed.
 */
export function audit(dir: string): string[] {
  return inspect(dir, (db) => {
    const problems: string[] = [];
    const passes = db
      .prepare(
        `SELECT p.id, p.credits,
           (SELECT coalesce(sum(credits), 0) FROM fundings f WHERE f.pass_id = p.id) AS funded,
           (SELECT coalesce(sum(cost), 0) FROM charges c
              WHERE c.pass_id = p.id AND c.kind = 'credits' AND c.state IN ('reserved', 'committed')) AS spent
         FROM passes p`,
      )
      .all() as { id: string; credits: number; funded: number; spent: number }[];
    for (const p of passes) {
      if (p.funded - p.spent !== p.credits) {
        problems.push(`pass ${p.id}: funded ${p.funded} − spent ${p.spent} ≠ balance ${p.credits}`);
      }
    }
    const compare = (label: string, countersSql: string, chargesSql: string) => {
      const counters = new Map(
        (db.prepare(countersSql).all() as { k: string; used: number }[]).map((r) => [r.k, r.used]),
      );
      const charges = new Map((db.prepare(chargesSql).all() as { k: string; n: number }[]).map((r) => [r.k, r.n]));
      for (const k of new Set([...counters.keys(), ...charges.keys()])) {
        const used = counters.get(k) ?? 0;
        const n = charges.get(k) ?? 0;
        if (used !== n) problems.push(`${label} ${k}: counter ${used} ≠ active free charges ${n}`);
      }
    };
    const active = `kind = 'free' AND state IN ('reserved', 'committed')`;
    compare(
      'key/day',
      `SELECT key_id || '/' || day AS k, used FROM free_usage`,
      `SELECT key_id || '/' || day AS k, count(*) AS n FROM charges WHERE ${active} GROUP BY key_id, day`,
    );
    compare(
      'ip/day',
      `SELECT hex(ip_fingerprint) || '/' || day AS k, used FROM ip_usage`,
      `SELECT hex(ip_fingerprint) || '/' || day AS k, count(*) AS n FROM charges WHERE ${active} GROUP BY ip_fingerprint, day`,
    );
    compare(
      'site/day',
      `SELECT day AS k, used FROM site_usage`,
      `SELECT day AS k, count(*) AS n FROM charges WHERE ${active} GROUP BY day`,
    );
    return problems;
  });
}

export function chargeStates(dir: string): Record<string, number> {
  return inspect(dir, (db) =>
    Object.fromEntries(
      (db.prepare('SELECT state, count(*) AS n FROM charges GROUP BY state').all() as { state: string; n: number }[]).map(
        (r) => [r.state, r.n],
      ),
    ),
  );
}
