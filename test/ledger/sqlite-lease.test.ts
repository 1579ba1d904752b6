import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { FileInUse } from '../../src/ledger/sqlite/lease.js';
import { openSqliteStore, type SqliteStore } from '../../src/ledger/sqlite/store.js';
import { eventually } from '../support/time.js';
import { chargeStates, cleanup, dbPath, IP, LIMITS, newCaller, NOW, tempDir } from './helpers.js';

/**
 * The SQLite file's lease, between two servers that are the same process number on
 * the same host name: two containers on one volume, each process 1. Here they are two
 * stores in this one process, which is exactly that. The lease named its holder by
 * (process, host), so the second took the first's lease for its own and gave back its
 * 5 in-flight reservations, then served uncharged.
 */
describe('the SQLite lease between servers of one process number and host name', () => {
  const dirs: string[] = [];
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) cleanup(dir);
  });
  const start = (dir: string, options: Parameters<typeof openSqliteStore>[2] = {}) => {
    const store = openSqliteStore(dbPath(dir), LIMITS, options);
    stores.push(store);
    return store;
  };

  it('a second server refuses to start beside a live holder and leaves its reservations alone', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = start(dir);
    await first.recoverInterrupted();
    const caller = await newCaller(first);
    for (let i = 0; i < 5; i++) expect((await first.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW)).ok).toBe(true);

    const second = start(dir);
    const refused = await second.recoverInterrupted().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(FileInUse);
    expect((refused as Error).message).toMatch(/^another decide serve \(process \d+ on .*\) is using this database/);
    expect(chargeStates(dir)).toEqual({ reserved: 5 });
  });

  it('a server whose heartbeat finds the lease taken stops taking new work and says why', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const warnings: string[] = [];
    const first = start(dir, { heartbeatMs: 20, warn: (line) => warnings.push(line) });
    await first.recoverInterrupted();
    const caller = await newCaller(first);
    expect((await first.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW)).ok).toBe(true);

    // Another server took the file over (as one does after this one fell silent for long).
    const other = new Database(dbPath(dir));
    other.prepare("UPDATE server_lease SET holder = 'someone-else', pid = 4242, host = 'elsewhere' WHERE id = 1").run();
    other.close();

    await eventually(() => warnings.length > 0, 'the lost lease reported');
    expect(warnings).toEqual([
      expect.stringMatching(
        /^another decide serve took this SQLite file over \(process 4242 on elsewhere, since .*\); this server takes no new decisions: stop it/,
      ),
    ]);
    const refused = await first.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'ledger_unavailable' });
    expect(chargeStates(dir)).toEqual({ reserved: 1 });
  });
});
