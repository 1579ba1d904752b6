import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPostgresUrl, NoLedger } from '../../ledger/open.js';
import { OPEN_BUSY_TIMEOUT_MS } from '../../ledger/sqlite/database.js';
import { EXIT, Failure } from '../exit-codes.js';
import { ledgerFailure } from '../ledger-access.js';
import { ledgerName } from './ledger.js';

/** sqlite3_backup_step's page count for "everything left", as better-sqlite3 takes it (it clamps below 0). */
const ALL_PAGES = 0x7fffffff;

/**
 * `decide backup FILE`: a consistent copy of the SQLite ledger while `decide serve`
 * keeps serving. SQLite's online backup copies every page in one step, under one read
 * snapshot: in WAL mode that blocks no writer, and the copy is the ledger as of one
 * moment (never half of a decision's transaction). It is written beside FILE, checked
 * (`quick_check`, and that it is a ledger), then renamed over FILE, so FILE is always
 * either the previous backup or a whole new one. The source is opened as it is: not
 * created, not migrated.
 */
export async function backup(file: string, flags: { db: string }): Promise<void> {
  if (isPostgresUrl(flags.db)) {
    throw new Failure(
      `the ledger ${ledgerName(flags.db)} is on PostgreSQL: back it up with pg_dump (see docs/operations.md, "Backing up the ledger")`,
      EXIT.usage,
    );
  }
  const target = path.resolve(file);
  if (target === path.resolve(flags.db)) throw new Failure(`${file} is the ledger itself; name another file`, EXIT.usage);
  if (!existsSync(path.dirname(target))) throw new Failure(`cannot write ${target}: its folder does not exist`, EXIT.ioErr);
  if (!existsSync(flags.db)) throw ledgerFailure(flags.db, new NoLedger(flags.db, `there is no ledger at ${path.resolve(flags.db)}`));

  const partial = `${target}.partial-${process.pid}`;
  let source: Database.Database | undefined;
  try {
    source = new Database(flags.db, { fileMustExist: true });
    source.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    if (source.pragma('user_version', { simple: true }) === 0) {
      throw new Failure(
        `${ledgerName(flags.db)} is a SQLite database but no ledger (schema version 0); point --db at the ledger`,
        EXIT.dataErr,
      );
    }
    await source.backup(partial, { progress: () => ALL_PAGES });
  } catch (error) {
    rmSync(partial, { force: true });
    throw error instanceof Failure ? error : ledgerFailure(flags.db, error);
  } finally {
    source?.close();
  }

  const summary = check(partial);
  renameSync(partial, target);
  const mb = (statSync(target).size / 1e6).toFixed(1);
  process.stdout.write(
    `backed up the ledger ${ledgerName(flags.db)} to ${target}: ${summary.keys} keys, ${summary.passes} passes, ${mb} MB, schema version ${summary.version}\n`,
  );
}

/** Opens the copy on its own and reads it back: a copy that fails this never replaces FILE. */
function check(file: string): { keys: number; passes: number; version: number } {
  const copy = new Database(file, { fileMustExist: true });
  try {
    const verdict = copy.pragma('quick_check', { simple: true });
    if (verdict !== 'ok') throw new Error(`quick_check says ${String(verdict)}`);
    const count = (table: string) => (copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { keys: count('keys'), passes: count('passes'), version: copy.pragma('user_version', { simple: true }) as number };
  } catch (error) {
    copy.close();
    rmSync(file, { force: true });
    throw new Failure(
      `the copy in ${file} failed its check (${(error as Error).message}); the previous backup, if any, is untouched`,
      EXIT.ioErr,
    );
  } finally {
    if (copy.open) copy.close();
  }
}
