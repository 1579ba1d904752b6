import Database from 'better-sqlite3';
import fs from 'node:fs';
import { audit, chargeStates, cleanup, dbPath, inspect, open, tempDir } from './helpers.js';
import type { LedgerHarness } from './store-suite.js';

/** The SQLite ledger for the shared suites: a file in a temp folder per test. */
export function sqliteHarness(): LedgerHarness & { dir(): string; location(): string } {
  let dir = '';
  return {
    name: 'SQLite',
    dir: () => dir,
    location: () => dbPath(dir),
    async create() {
      dir = tempDir();
    },
    async destroy() {
      cleanup(dir);
    },
    async open(limits = {}) {
      return open(dir, limits);
    },
    async rows<T>(sql: string, params: unknown[] = []) {
      return inspect(dir, (db) => db.prepare(sql).all(...params) as T[]);
    },
    async exec(sql, params = []) {
      const db = new Database(dbPath(dir));
      try {
        db.prepare(sql).run(...params);
      } finally {
        db.close();
      }
    },
    async audit() {
      return audit(dir);
    },
    async chargeStates() {
      return chargeStates(dir);
    },
    // At a serve's start any reservation was left by a dead process (one serve per file).
    async outliveLeases() {},
    async everything() {
      const files = [dbPath(dir), `${dbPath(dir)}-wal`, `${dbPath(dir)}-shm`].filter((f) => fs.existsSync(f));
      return Buffer.concat(files.map((f) => fs.readFileSync(f)));
    },
  };
}
