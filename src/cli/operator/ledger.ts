import path from 'node:path';
import { describeLocation, isPostgresUrl } from '../../ledger/open.js';
import type { Store } from '../../ledger/store.js';
import { EXIT, Failure } from '../exit-codes.js';
import { ledgerLimits, withStore } from '../ledger-access.js';
import { clockWords } from '../when.js';

/**
 * What every operator command shares: the ledger `--db` names, opened without ever
 * making one unless `--create` says so, and named in what the command prints, since a
 * key or a pass exists only for a server on that same ledger.
 */

export interface LedgerFlags {
  db: string;
  json?: boolean;
  /** Make the ledger if there is none (only `key create` and `pass create` offer it). */
  create?: boolean;
}

/** Runs `work` on the ledger; a missing one is exit 66 naming where it looked. */
export const onLedger = <T>(flags: LedgerFlags, work: (store: Store) => Promise<T>): Promise<T> =>
  withStore(flags.db, ledgerLimits(), work, { create: flags.create ?? false });

/**
 * The ledger as `decide serve --db` must name it to see the same data: an absolute
 * path, since `./decide.db` is relative to wherever each command ran (a URL with its
 * password masked).
 */
export const ledgerName = (db: string): string => (isPostgresUrl(db) ? describeLocation(db) : path.resolve(db));

export const noPass = (passId: string, db: string) => new Failure(`no pass ${passId} in the ledger ${ledgerName(db)}`, EXIT.notFound);

export const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value) + '\n');

/** The stderr line that says which ledger a command read, when its output does not. */
export const sayLedger = (db: string): void => void process.stderr.write(`decide: ledger ${ledgerName(db)}\n`);

/** Rows as aligned columns, the header first; empty cells as "-". */
export function table(header: string[], rows: string[][]): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => cell || '-'))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n') + '\n';
}

/** An ISO time as a table shows it: "2026-11-22 18:48 UTC", or nothing. */
export const when = (iso: string | null): string => (iso ? clockWords(iso) : '');
