import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/ledger/sqlite/database.js';
import { MIGRATIONS, migrate } from '../../src/ledger/sqlite/migrations.js';
import type { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { cleanup, dbPath, newCaller, open, tempDir } from './helpers.js';
import { loggedAt } from './log-entry.js';
import { sqliteHarness } from './sqlite-harness.js';
import { storeSuite } from './store-suite.js';

// The Store contract, shared with PostgreSQL (test/ledger/postgres.test.ts).
storeSuite(sqliteHarness());

// What only the SQLite file has: its pragmas and its migrations by user_version.
describe('SQLite: schema and migrations', () => {
  let dir: string;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    cleanup(dir);
  });

  it('creates every table on a new file and sets the pragmas', () => {
    const db = openDatabase(dbPath(dir));
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      // Locks are waited for off the event loop (busy.ts), never inside SQLite.
      expect(db.pragma('busy_timeout', { simple: true })).toBe(0);
      const tables = (
        db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as {
          name: string;
        }[]
      ).map((r) => r.name);
      expect(tables).toEqual([
        'calibrations',
        'charges',
        'decisions',
        'evaluations',
        'free_usage',
        'fundings',
        'idempotency',
        'ip_usage',
        'key_creations',
        'keys',
        'metrics',
        'pass_creations',
        'passes',
        'server_lease',
        'settings',
        'site_usage',
      ]);
    } finally {
      db.close();
    }
  });

  it('reopening is a no-op and keeps the data', async () => {
    store = open(dir);
    const { passId } = await store.passes.create(new Date());
    await store.passes.fund(passId, 7, new Date());
    await store.close();

    const db = openDatabase(dbPath(dir));
    expect(migrate(db)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length });
    db.close();

    store = open(dir);
    expect((await store.passes.show(passId))?.passCredits).toBe(7);
  });

  it('applies a later step once, and a failing step leaves nothing behind', () => {
    const db = openDatabase(dbPath(dir));
    try {
      const base = MIGRATIONS.length;
      const steps = [...MIGRATIONS, 'CREATE TABLE extra (a INTEGER) STRICT;'];
      expect(migrate(db, steps)).toEqual({ from: base, to: base + 1 });
      expect(migrate(db, steps)).toEqual({ from: base + 1, to: base + 1 });

      const broken = [...steps, 'CREATE TABLE half (a INTEGER) STRICT; INSERT INTO no_such_table VALUES (1);'];
      expect(() => migrate(db, broken)).toThrow(/no_such_table/);
      expect(db.pragma('user_version', { simple: true })).toBe(base + 1);
      expect(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'`).get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('refuses a file from a newer program', () => {
    const db = openDatabase(dbPath(dir));
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => open(dir)).toThrow(/newer than this program/);
  });

  it("the server's periodic sweep also deletes the decision log's entries past their retention (30 days by default)", async () => {
    store = open(dir);
    const caller = await newCaller(store);
    await loggedAt(store, caller, new Date(Date.now() - 31 * 86_400_000), 'old');
    await loggedAt(store, caller, new Date(), 'new');
    await store.sweep();
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['new']);
  });
});
