import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/ledger/sqlite/migrations.js';
import type { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { audit, cleanup, dbPath, inspect, NOW, open, tempDir } from './helpers.js';

/**
 * A ledger file as the release at `steps` left it: a pass funded with 10 and holding
 * 7 credits, its key, and the charges `rows` (SQL tuples, `$AT` and `$LATER` filled in).
 */
function oldFile(dir: string, steps: number, columns: string, rows: string[]): void {
  const db = new Database(dbPath(dir));
  db.pragma('journal_mode = WAL');
  migrate(db, MIGRATIONS.slice(0, steps));
  const at = NOW.toISOString();
  const later = new Date(NOW.getTime() + 60_000).toISOString();
  const fill = (row: string) => row.replaceAll('$AT', `'${at}'`).replaceAll('$LATER', `'${later}'`);
  db.exec(`
    INSERT INTO passes (id, created_at, credits, funded_ever) VALUES ('pass_old', '${at}', 7, 1);
    INSERT INTO fundings (id, pass_id, credits, created_at) VALUES ('fund_old', 'pass_old', 10, '${at}');
    INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ('key_old', 'pass_old', zeroblob(32), 'h', '${at}');
    INSERT INTO charges (${columns}) VALUES ${rows.map(fill).join(', ')};
  `);
  db.close();
}

// A ledger written by an earlier release is brought forward with its books intact.
describe('SQLite: a file from before step 5 (brought through steps 5 to 7, charges keyed by id alone)', () => {
  let dir: string;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    dir = tempDir();
    // The file as the release before step 5 left it (no pass_creations, no group_id):
    // a funded pass, a key, one committed charge and two reservations still open.
    oldFile(dir, 4, 'id, key_id, pass_id, kind, cost, state, day, created_at, settled_at, expires_at', [
      "('chg_committed', 'key_old', 'pass_old', 'credits', 1, 'committed', '2026-11-22', $AT, $AT, $LATER)",
      "('chg_open1', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', $AT, NULL, $LATER)",
      "('chg_open2', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', $AT, NULL, $LATER)",
    ]);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    cleanup(dir);
  });

  it('keeps every charge, commits one reserved before, and gives back the rest at the start', async () => {
    store = open(dir);
    expect(await store.charges.commit('chg_open1', NOW)).toEqual({ charged: true });
    expect(await store.recoverInterrupted()).toBe(1);
    expect((await store.passes.show('pass_old'))?.passCredits).toBe(8);
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
    // The groups' index (step 6) is made again on the rebuilt table.
    expect(indexes).toEqual([{ name: 'charges_expiry' }, { name: 'charges_group' }]);
    expect(withoutRowid).toMatch(/WITHOUT ROWID\s*$/);
  });
});

// A file of the release with step 6 (several units paid together, tied by group_id):
// step 7 rebuilds charges and must keep every group whole.
describe('SQLite: a file at step 6 with a group of units still reserved', () => {
  let dir: string;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    dir = tempDir();
    // A pass funded with 10, three credits reserved as one group of three units.
    oldFile(dir, 6, 'id, key_id, pass_id, kind, cost, state, day, created_at, settled_at, expires_at, group_id', [
      "('chg_unit1', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', $AT, NULL, $LATER, 'res_old')",
      "('chg_unit2', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', $AT, NULL, $LATER, 'res_old')",
      "('chg_unit3', 'key_old', 'pass_old', 'credits', 1, 'reserved', '2026-11-22', $AT, NULL, $LATER, 'res_old')",
    ]);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    cleanup(dir);
  });

  it('keeps the group: a commit keeping one unit gives the other two back', async () => {
    store = open(dir);
    const sample = { reservedAt: NOW, channel: 'api' as const, ms: 5 };
    expect(await store.charges.commit('res_old', NOW, { sample, units: 1, answer: () => '{}' })).toEqual({ charged: true });
    expect((await store.passes.show('pass_old'))?.passCredits).toBe(9);
    const states = inspect(dir, (db) => db.prepare('SELECT id, state, group_id FROM charges ORDER BY id').all());
    expect(states).toEqual([
      { id: 'chg_unit1', state: 'committed', group_id: 'res_old' },
      { id: 'chg_unit2', state: 'released', group_id: 'res_old' },
      { id: 'chg_unit3', state: 'released', group_id: 'res_old' },
    ]);
    expect(audit(dir)).toEqual([]);
  });
});

// A decision log written before its entries held the same numbers in every mode: a
// choice's `confidence` was the margin (k·p − 1)/(k − 1), a noul's and a score's the
// top answer's probability. The upgrade makes every `confidence` the margin, keeps
// each probability as `top_probability`, and finds a choice's again where its options
// were kept (level full).
describe('SQLite: a decision log from before every mode held the same confidence', () => {
  let dir: string;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    dir = tempDir();
    const db = new Database(dbPath(dir));
    db.pragma('journal_mode = WAL');
    // Step 12 made the decisions table; later steps are the upgrade.
    migrate(db, MIGRATIONS.slice(0, 12));
    const at = (minute: number) => `'${new Date(NOW.getTime() + minute * 60_000).toISOString()}'`;
    const row = (minute: number, mode: string, top: string, confidence: number, choices: string | null) =>
      `('pass_old', 'key_old', ${at(minute)}, 'api', '${mode}', 'standard', 0, 'unclear', '${top}', ${confidence}, ${
        choices === null ? 'NULL, NULL, NULL, NULL' : `'q', 'c', '${choices}', '{}'`
      })`;
    db.exec(`
      INSERT INTO passes (id, created_at, credits, funded_ever) VALUES ('pass_old', ${at(0)}, 0, 0);
      INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ('key_old', 'pass_old', zeroblob(32), 'h', ${at(0)});
      INSERT INTO decisions (pass_id, key_id, decided_at, door, mode, depth, credits, signal, top, confidence,
        question, context, choices, answer) VALUES
        ${[
          row(1, 'choice', 'PostgreSQL', 0.08, null),
          row(2, 'choice', 'A', 0.5, '["A","B"]'),
          row(3, 'choice', 'B', 0.4, '["A","B","C"]'),
          row(4, 'noul', 'yes', 0.54, null),
          row(5, 'noul', 'no', 1, null),
          row(6, 'score', 'low', 0.384, '["low","medium","high"]'),
          row(7, 'score', 'high', 0.3334, null),
        ].join(',\n')};
    `);
    db.close();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    cleanup(dir);
  });

  it('turns every confidence into the margin and keeps each probability it can know', async () => {
    store = open(dir);
    const logged = (await store.decisions.recent('pass_old', 20)).reverse();
    expect(logged.map((d) => [d.mode, d.top, d.topProbability, d.confidence])).toEqual([
      // Metadata kept no options: a choice's probability cannot be known again.
      ['choice', 'PostgreSQL', null, 0.08],
      ['choice', 'A', 0.75, 0.5],
      ['choice', 'B', 0.6, 0.4],
      ['noul', 'yes', 0.54, 0.08],
      ['noul', 'no', 1, 1],
      ['score', 'low', 0.384, 0.076],
      ['score', 'high', 0.3334, 0.0001],
    ]);
  });

  it('writes new entries with both numbers', async () => {
    store = open(dir);
    const reserved = await store.charges.reserve(
      { caller: { keyId: 'key_old', passId: 'pass_old', keyHint: 'h' }, depth: 'standard', ip: '203.0.113.7' },
      NOW,
    );
    if (!reserved.ok) throw new Error(reserved.code);
    await store.charges.commit(reserved.reservation.id, NOW, {
      sample: { reservedAt: NOW, channel: 'api', ms: 1 },
      answer: () => '{}',
      logged: () => ({
        keyId: 'key_old',
        passId: 'pass_old',
        door: 'api',
        mode: 'score',
        depth: 'standard',
        credits: 0,
        signal: 'unclear',
        top: 'low',
        topProbability: 0.384,
        confidence: 0.076,
        text: null,
      }),
    });
    const rows = inspect(dir, (db) =>
      db.prepare(`SELECT top, top_probability, confidence FROM decisions WHERE decided_at = ?`).all(NOW.toISOString()),
    );
    expect(rows).toEqual([{ top: 'low', top_probability: 0.384, confidence: 0.076 }]);
  });
});
