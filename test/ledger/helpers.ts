import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Limits, Store } from '../../src/ledger/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/ledger/sqlite/store.js';
import type { Caller } from '../../src/contract/caller.js';

export const DAY = '2026-11-22';
export const NEXT_DAY = '2026-11-23';
export const NOW = new Date('2026-11-22T10:00:00.000Z');
export const NEXT = new Date('2026-11-23T10:00:00.000Z');
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
export async function newCaller(store: Store, passId?: string): Promise<Caller> {
  const created = await store.keys.create(new Date(), passId);
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
 * The audit's queries, in SQL both SQLite and PostgreSQL read alike (counts and sums
 * cast to INTEGER; keys compared in JS), so one audit judges both ledgers.
 */
const ACTIVE_FREE = `kind = 'free' AND state IN ('reserved', 'committed')`;
export const AUDIT_QUERIES = {
  passes: `SELECT p.id, p.credits,
             (SELECT CAST(coalesce(sum(credits), 0) AS INTEGER) FROM fundings f WHERE f.pass_id = p.id) AS funded,
             (SELECT CAST(coalesce(sum(cost), 0) AS INTEGER) FROM charges c
                WHERE c.pass_id = p.id AND c.kind = 'credits' AND c.state IN ('reserved', 'committed')) AS spent
           FROM passes p`,
  keyCounters: `SELECT key_id AS k, day, used FROM free_usage`,
  keyCharges: `SELECT key_id AS k, day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE} GROUP BY key_id, day`,
  ipCounters: `SELECT ip_fingerprint AS k, day, used FROM ip_usage`,
  ipCharges: `SELECT ip_fingerprint AS k, day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE}
              GROUP BY ip_fingerprint, day`,
  siteCounters: `SELECT '' AS k, day, used FROM site_usage`,
  siteCharges: `SELECT '' AS k, day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE} GROUP BY day`,
  chargeStates: `SELECT state, CAST(count(*) AS INTEGER) AS n FROM charges GROUP BY state`,
} as const;

export type AuditRows = Record<keyof typeof AUDIT_QUERIES, any[]>;

/**
 * Checks the ledger's books, returning every violation found (empty when balanced):
 * - per pass: Σ fundings − Σ credits charges reserved or committed = balance;
 * - each free counter (per key, per IP, per site and day) = its free charges that are
 *   reserved or committed.
 */
export function judgeBooks(rows: AuditRows): string[] {
  const problems: string[] = [];
  for (const p of rows.passes as { id: string; credits: number; funded: number; spent: number }[]) {
    if (p.funded - p.spent !== p.credits) {
      problems.push(`pass ${p.id}: funded ${p.funded} − spent ${p.spent} ≠ balance ${p.credits}`);
    }
  }
  const label = (k: unknown, day: string) =>
    `${Buffer.isBuffer(k) ? k.toString('hex').toUpperCase() : String(k)}${k === '' ? '' : '/'}${day}`;
  const compare = (what: string, counterRows: any[], chargeRows: any[]) => {
    const counters = new Map(counterRows.map((r) => [label(r.k, r.day), r.used as number]));
    const charges = new Map(chargeRows.map((r) => [label(r.k, r.day), r.n as number]));
    for (const k of new Set([...counters.keys(), ...charges.keys()])) {
      const used = counters.get(k) ?? 0;
      const n = charges.get(k) ?? 0;
      if (used !== n) problems.push(`${what} ${k}: counter ${used} ≠ active free charges ${n}`);
    }
  };
  compare('key/day', rows.keyCounters, rows.keyCharges);
  compare('ip/day', rows.ipCounters, rows.ipCharges);
  compare('site/day', rows.siteCounters, rows.siteCharges);
  return problems;
}

export function statesOf(rows: { state: string; n: number }[]): Record<string, number> {
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

/** Runs the audit's queries with `read` (sync or async). */
export async function auditWith(read: (sql: string) => Promise<any[]>): Promise<string[]> {
  const rows = {} as AuditRows;
  for (const [name, sql] of Object.entries(AUDIT_QUERIES)) rows[name as keyof AuditRows] = await read(sql);
  return judgeBooks(rows);
}

/** The SQLite ledger in `dir`, audited through its own connection (see `judgeBooks`). */
export function audit(dir: string): string[] {
  return inspect(dir, (db) => {
    const rows = {} as AuditRows;
    for (const [name, sql] of Object.entries(AUDIT_QUERIES)) rows[name as keyof AuditRows] = db.prepare(sql).all();
    return judgeBooks(rows);
  });
}

export function chargeStates(dir: string): Record<string, number> {
  return inspect(dir, (db) => statesOf(db.prepare(AUDIT_QUERIES.chargeStates).all() as { state: string; n: number }[]));
}
