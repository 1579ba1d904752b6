import fs from 'node:fs';
import path from 'node:path';
import { describeLocation, isPostgresUrl, NoLedger, openStore, type OpenOptions } from '../ledger/open.js';
import { sqliteCode } from '../ledger/sqlite/busy.js';
import type { Limits, Store } from '../ledger/store.js';
import { siteLimits } from '../config/config.js';
import { limitsOf } from '../service/limits.js';
import { EXIT, Failure } from './exit-codes.js';

/**
 * The ledger as the CLI opens it: every way a database can fail becomes one sentence
 * naming it (a URL's password masked) and an exit code an operator can act on,
 * never a stack trace. SQLite's result codes decide, read from better-sqlite3's
 * error, or from the one a `ledger_unavailable` error of the store carries as its cause.
 */

/** Another connection holds the lock: try again later. */
const LOCKED = /^SQLITE_(BUSY|LOCKED)/;
/** The file is there but is no SQLite database (NOTADB) or a damaged one (CORRUPT): restore it. */
const NOT_A_LEDGER = /^SQLITE_(NOTADB|CORRUPT)/;
/** The file cannot be opened or written: fix the path, its permissions or the disk. */
const CANNOT_OPEN = /^SQLITE_(CANTOPEN|PERM|READONLY|IOERR|FULL|AUTH)/;

export function ledgerFailure(db: string, error: unknown): Failure {
  if (error instanceof NoLedger) {
    return new Failure(
      `${error.message}: run this where decide serve runs, or point --db (or DECIDE_DB) at its ledger; --create makes a new one`,
      EXIT.notFound,
    );
  }
  const where = describeLocation(db);
  const message = oneLine(withoutPassword(error instanceof Error ? error.message : String(error), db));
  if (isPostgresUrl(db)) return new Failure(`the PostgreSQL database ${where} cannot be used: ${message}`, EXIT.unavailable);

  const code = sqliteCode(error);
  if (code?.startsWith('SQLITE_NOTADB')) {
    return new Failure(`the database ${where} is not a SQLite database (${code}); point --db at the ledger`, EXIT.dataErr);
  }
  if (code && NOT_A_LEDGER.test(code))
    return new Failure(`the database ${where} is damaged (${code}); restore it from a backup`, EXIT.dataErr);
  if (code && LOCKED.test(code)) {
    return new Failure(`the database ${where} is locked by another process; try again once it is released`, EXIT.unavailable);
  }
  const unopenable = whyUnopenable(db);
  if (unopenable) return new Failure(`cannot open the database ${where}: ${unopenable}`, EXIT.ioErr);
  if (code && CANNOT_OPEN.test(code)) return new Failure(`cannot open or write the database ${where}: ${message}`, EXIT.ioErr);
  return new Failure(`cannot use the database ${where}: ${message}`, EXIT.unavailable);
}

/** What the file system says about a path SQLite could not open, when it says something plain. */
function whyUnopenable(file: string): string | undefined {
  try {
    if (fs.statSync(file).isDirectory()) return 'it is a directory, not a file';
    return undefined;
  } catch {
    const folder = path.dirname(path.resolve(file));
    return fs.existsSync(folder) ? undefined : `its folder ${folder} does not exist`;
  }
}

/** Drivers quote what they were given; a password in the URL must not reach the terminal. */
function withoutPassword(message: string, db: string): string {
  if (!isPostgresUrl(db)) return message;
  let secrets: string[] = [];
  try {
    const url = new URL(db);
    secrets = [url.password, decodeURIComponent(url.password), url.searchParams.get('password') ?? ''];
  } catch {
    return message.split(db).join(describeLocation(db));
  }
  return secrets.filter((s) => s.length > 0).reduce((text, secret) => text.split(secret).join('***'), message);
}

const oneLine = (text: string) => text.split('\n')[0].trim();

/** The ledger's limits from the environment; a bad variable is a configuration error, not the database's. */
export function ledgerLimits(): Limits {
  try {
    return limitsOf(siteLimits(process.env));
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
}

/**
 * Opens the ledger, runs `work`, and closes the store whatever happened, before any
 * failure is reported: a Failure thrown by `work` passes through, and any other
 * error of the store becomes ledgerFailure's sentence.
 */
export async function withStore<T>(db: string, limits: Limits, work: (store: Store) => Promise<T>, options: OpenOptions = {}): Promise<T> {
  let store: Store;
  try {
    store = await openStore(db, limits, options);
  } catch (error) {
    throw ledgerFailure(db, error);
  }
  let outcome: { value: T } | { error: unknown };
  try {
    outcome = { value: await work(store) };
  } catch (error) {
    outcome = { error };
  }
  try {
    await store.close();
  } catch (error) {
    if ('value' in outcome) outcome = { error };
  }
  if ('value' in outcome) return outcome.value;
  throw outcome.error instanceof Failure ? outcome.error : ledgerFailure(db, outcome.error);
}
