import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openaiEnv, runCli, runJson, useServeFixture, type CliResult } from '../support/cli.js';
import { scaled } from '../support/time.js';

/**
 * A database the operator commands (and `decide serve`) cannot use is one sentence on
 * stderr naming it, with a documented exit code: 69 locked or unreachable, 65 not a
 * SQLite database or damaged, 74 not openable. Never a stack trace, never a password.
 */

/** One line, `decide: …`, naming `named` (the database, or the pass), and no trace of a stack. */
function expectSentence(result: CliResult, code: number, named: string, words: string): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^decide: /);
  expect(lines[0]).toContain(named);
  expect(lines[0]).toContain(words);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

/** Another process's `BEGIN EXCLUSIVE` on the file, as a sqlite3 shell or a backup script holds it. */
function holdExclusive(file: string): () => void {
  const db = new Database(file);
  db.exec('BEGIN EXCLUSIVE');
  return () => {
    db.exec('COMMIT');
    db.close();
  };
}

/** Everything in the main file (no WAL beside it), then the root pages of `tables` overwritten with noise. */
function damage(file: string, tables: string[]): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const roots = tables.map(
    (name) => (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(name) as { rootpage: number }).rootpage,
  );
  db.close();
  const fd = fs.openSync(file, 'r+');
  for (const page of roots) fs.writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
  fs.closeSync(fd);
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('operator commands and serve on a database they cannot use', () => {
  const serve = useServeFixture();
  const serveEnv = () => openaiEnv(serve.fake.url, 'sk-operator-db-test');

  it('a file locked past the wait: 69, for a write, for opening a rollback-journal file, and for serve', async () => {
    const { db: walDb } = serve.tempDb();
    const pass = await runJson(['pass', 'create', '--create', '--db', walDb]);
    const { db: journalDb } = serve.tempDb();
    const other = await runJson(['pass', 'create', '--create', '--db', journalDb]);
    // In rollback-journal mode an exclusive lock shuts out readers too, so opening itself waits.
    const journal = new Database(journalDb);
    journal.pragma('journal_mode = DELETE');
    journal.close();

    const releases = [holdExclusive(walDb), holdExclusive(journalDb)];
    try {
      const [fund, show, serving] = await Promise.all([
        runCli(['pass', 'fund', '--pass', pass.passId, '--credits', '5', '--db', walDb], {}, scaled(15_000)),
        runCli(['pass', 'show', '--pass', other.passId, '--db', journalDb], {}, scaled(15_000)),
        runCli(['serve', '--port', '0', '--db', walDb], serveEnv(), scaled(15_000)),
      ]);
      for (const [result, db] of [
        [fund, walDb],
        [show, journalDb],
        [serving, walDb],
      ] as const) {
        expectSentence(result, 69, db, 'is locked by another process');
      }
    } finally {
      for (const release of releases) release();
    }
    // Nothing was written, and the file works again once let go.
    expect(await runJson(['pass', 'show', '--pass', pass.passId, '--db', walDb])).toMatchObject({ passCredits: 0 });
  });

  it('garbage bytes, or a text file: 65, not a SQLite database', async () => {
    const { dir } = serve.tempDb();
    const garbage = path.join(dir, 'garbage.db');
    fs.writeFileSync(garbage, randomBytes(8192));
    const text = path.join(dir, 'notes.db');
    fs.writeFileSync(text, 'the ledger is elsewhere\n'.repeat(100));
    for (const db of [garbage, text]) {
      expectSentence(await runCli(['pass', 'show', '--pass', 'pass_x', '--db', db]), 65, db, 'is not a SQLite database (SQLITE_NOTADB)');
      expectSentence(await runCli(['key', 'create', '--create', '--db', db]), 65, db, 'is not a SQLite database');
    }
    expectSentence(await runCli(['serve', '--port', '0', '--db', garbage], serveEnv()), 65, garbage, 'is not a SQLite database');
  });

  it('a damaged ledger (its tables overwritten): 65, for reads and writes alike', async () => {
    const { db } = serve.tempDb();
    const pass = await runJson(['pass', 'create', '--create', '--db', db]);
    damage(db, ['passes', 'keys']);
    const commands = [
      ['pass', 'show', '--pass', pass.passId],
      ['pass', 'fund', '--pass', pass.passId, '--credits', '3'],
      ['key', 'create', '--create'],
    ];
    for (const args of commands) expectSentence(await runCli([...args, '--db', db]), 65, db, 'is damaged (SQLITE_CORRUPT)');
  });

  it('a directory, or a folder that does not exist: 74', async () => {
    const { dir } = serve.tempDb();
    expectSentence(await runCli(['pass', 'create', '--create', '--db', dir]), 74, dir, 'it is a directory, not a file');
    expectSentence(await runCli(['serve', '--port', '0', '--db', dir], serveEnv()), 74, dir, 'it is a directory');
    const missing = path.join(dir, 'no-such-folder', 'ledger.db');
    expectSentence(await runCli(['pass', 'create', '--create', '--db', missing]), 74, missing, 'does not exist');
  });

  it('an unreachable PostgreSQL: 69, the URL shown without its password', async () => {
    const secret = 'pg-pa55word-never-shown';
    const port = await closedPort();
    const url = `postgres://decide:${secret}@127.0.0.1:${port}/decide?sslmode=disable`;
    const shown = `postgres://decide:***@127.0.0.1:${port}/decide`;
    for (const args of [
      ['pass', 'create', '--create'],
      ['pass', 'fund', '--pass', 'pass_x', '--credits', '1'],
    ]) {
      const result = await runCli([...args, '--db', url]);
      expectSentence(result, 69, shown, 'cannot be used: connect ECONNREFUSED');
      expect(result.stderr).not.toContain(secret);
    }
  });

  it('a failure inside the ledger closes it before exiting: no WAL left behind', async () => {
    const { db } = serve.tempDb();
    await runJson(['pass', 'create', '--create', '--db', db]);
    const result = await runCli(['pass', 'fund', '--pass', 'pass_doesnotexist', '--credits', '5', '--db', db]);
    expect(result.code).toBe(66);
    // SQLite checkpoints and deletes the WAL when the last connection closes; process.exit would leave it.
    expect(fs.existsSync(`${db}-wal`)).toBe(false);
  });

  it('a funding that would take a balance past the largest safe integer: 64 naming --credits, nothing written', async () => {
    const { db } = serve.tempDb();
    const pass = await runJson(['pass', 'create', '--create', '--db', db]);
    const edit = new Database(db);
    edit.prepare('UPDATE passes SET credits = ? WHERE id = ?').run(Number.MAX_SAFE_INTEGER - 10, pass.passId);
    edit.close();
    const result = await runCli(['pass', 'fund', '--pass', pass.passId, '--credits', '11', '--db', db]);
    expectSentence(result, 64, pass.passId, `--credits 11 would take pass ${pass.passId}`);
    expect(result.stderr).toContain(`past ${Number.MAX_SAFE_INTEGER}`);
    expect(await runJson(['pass', 'show', '--pass', pass.passId, '--db', db])).toMatchObject({ passCredits: Number.MAX_SAFE_INTEGER - 10 });
  });
});
