import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/ledger/sqlite/migrations.js';
import type { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { audit, cleanup, dbPath, inspect, NOW, open, tempDir } from './helpers.js';

// A ledger written by an earlier release is brought forward with its books intact.
describe('SQLite: a file from before step 5 (charges keyed by id alone)', () => {
  let dir: string;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    dir = tempDir();
    // The file as the release before step 5 left it: a funded pass, a key, one
    // committed charge and two reservations still open.
    const db = new Database(dbPath(dir));
    db.pragma('journal_mode = WAL');
    migrate(db, MIGRATIONS.slice(0, 4));
    const at = NOW.toISOString();
    const later = new Date(NOW.getTime() + 60_000).toISOString();
    db.exec(`
      INSERT INTO passes (id, created_at, credits, funded_ever) VALUES ('pass_old', '${at}', 7, 1);
      INSERT INTO fundings (id, pass_id, credits, created_at) VALUES ('fund_old', 'pass_old', 10, '${at}');
      INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ('key_old', 'pass_old', zeroblob(32), 'h', '${at}');
      INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, created_at, settled_at, expires_at) VALUES
        ('chg_committed', 'key_old', 'pass_old', 'credits', 1, 'committed', '2026-11-22', '${at}', '${at}', '${later}'),
        ('chg_open1', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', '${at}', NULL, '${later}'),
        ('chg_open2', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', '${at}', NULL, '${later}');
    `);
    db.close();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    cleanup(dir);
  });

  it('keeps every charge, commits one reserved before, and gives back the rest at the start', async () => {
    store = open(dir);
    expect(await store.commit('chg_open1', NOW)).toEqual({ charged: true });
    expect(await store.recoverInterrupted()).toBe(1);
    expect((await store.showPass('pass_old'))?.passCredits).toBe(8);
    const states = inspect(dir, (db) => db.prepare('SELECT id, state FROM charges ORDER BY id').all());
    expect(states).toEqual([
      { id: 'chg_committed', state: 'committed' },
      { id: 'chg_open1', state: 'committed' },
      { id: 'chg_open2', state: 'released' },
    ]);
    expect(audit(dir)).toEqual([]);
  });

  it('leaves charges one b-tree and the sweep its index', () => {
    store = open(dir);
    const { indexes, withoutRowid } = inspect(dir, (db) => ({
      indexes: db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'charges' ORDER BY name`).all(),
      withoutRowid: (db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'charges'`).get() as { sql: string }).sql,
    }));
    // The primary key of a table WITHOUT ROWID is the table itself: no separate index.
    expect(indexes).toEqual([{ name: 'charges_expiry' }]);
    expect(withoutRowid).toMatch(/WITHOUT ROWID\s*$/);
  });
});
