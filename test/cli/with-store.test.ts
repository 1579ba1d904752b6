import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, Failure } from '../../src/cli/exit-codes.js';
import { withStore } from '../../src/cli/ledger-access.js';
import { siteLimits } from '../../src/config/config.js';
import { limitsOf } from '../../src/service/limits.js';
import { tempDb, type TempDb } from '../support/cli.js';

/**
 * A command's work on the ledger fails by throwing; withStore closes the store before
 * the failure goes up to the action that ends the process. A SQLite file in WAL mode
 * keeps its `-wal` file while any connection is open, so its absence shows the close.
 */
describe('withStore closes the ledger whatever the work does', () => {
  let tmp: TempDb;
  afterEach(() => tmp?.remove());

  const open = (db: string) => fs.existsSync(`${db}-wal`);

  it('a Failure thrown by the work comes out unchanged, after the store is closed', async () => {
    tmp = tempDb();
    let seenOpen = false;
    const failure = new Failure('no pass pass_x', EXIT.notFound);
    await expect(
      withStore(tmp.db, limitsOf(siteLimits({})), async (store) => {
        await store.passes.create(new Date());
        seenOpen = open(tmp.db);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(seenOpen).toBe(true);
    expect(open(tmp.db)).toBe(false);
  });

  it('any other error of the work becomes a Failure naming the database, after the store is closed', async () => {
    tmp = tempDb();
    const error = await withStore(tmp.db, limitsOf(siteLimits({})), async () => {
      throw new Error('disk I/O error');
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Failure);
    expect((error as Failure).message).toBe(`cannot use the database ${tmp.db}: disk I/O error`);
    expect((error as Failure).exitCode).toBe(EXIT.unavailable);
    expect(open(tmp.db)).toBe(false);
  });

  it('the value of the work is returned once the store is closed', async () => {
    tmp = tempDb();
    const pass = await withStore(tmp.db, limitsOf(siteLimits({})), (store) => store.passes.create(new Date()));
    expect(pass.passId).toMatch(/^pass_/);
    expect(open(tmp.db)).toBe(false);
    expect(await withStore(tmp.db, limitsOf(siteLimits({})), (store) => store.passes.show(pass.passId))).toMatchObject({
      passId: pass.passId,
      passCredits: 0,
    });
  });
});
