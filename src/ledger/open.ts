import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Limits, Store } from './store.js';
import { openSqliteStore } from './sqlite/store.js';
import { createPool, parsePostgresUrl, redactPostgresUrl } from './postgres/database.js';
import { VERSION_TABLE } from './postgres/migrations.js';
import { openPostgresStore, type PostgresStoreOptions } from './postgres/store.js';

/** True when `--db` names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * How the service uses the ledger. `decisionDeadlineMs` (DECIDE_ENGINE_TIMEOUT_MS)
 * tells either store when a reservation can only have been left behind: by a server
 * that died (PostgreSQL), or by a release that could not be written (SQLite, whose
 * one server per file also releases everything reserved when it starts).
 */
export type OpenOptions = PostgresStoreOptions & {
  /**
   * Whether a ledger that does not exist yet is made (a SQLite file, or PostgreSQL
   * tables); default true, as `decide serve` does. The operator commands pass false
   * unless told `--create`, so one run in the wrong folder never leaves an empty
   * ledger there: NoLedger says where none was found.
   */
  create?: boolean;
};

/** `--db` names no ledger, and the caller asked not to create one. */
export class NoLedger extends Error {
  constructor(
    readonly location: string,
    why: string,
  ) {
    super(why);
    this.name = 'NoLedger';
  }
}

/**
 * Opens the ledger `--db` names: a `postgres://` URL (optionally `?schema=NAME`) or a
 * SQLite file path (created and migrated on first use). Async because the PostgreSQL
 * store has to connect.
 */
export async function openStore(location: string, limits: Limits, options: OpenOptions = {}): Promise<Store> {
  const { create = true, ...rest } = options;
  if (!create) await mustExist(location);
  if (isPostgresUrl(location)) return openPostgresStore(location, limits, rest);
  return openSqliteStore(location, limits, rest);
}

async function mustExist(location: string): Promise<void> {
  if (!isPostgresUrl(location)) {
    if (!existsSync(location)) throw new NoLedger(location, `there is no ledger at ${path.resolve(location)}`);
    return;
  }
  const where = parsePostgresUrl(location);
  const pool = createPool(where, 1);
  try {
    // to_regclass is null for a table that does not exist (or a schema that does not).
    const table = where.schema ? `${where.schema}.${VERSION_TABLE}` : VERSION_TABLE;
    const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [table]);
    if (rows[0].found === null) {
      const schema = where.schema ? `schema ${where.schema}` : 'the schemas of its search_path';
      throw new NoLedger(
        location,
        `the PostgreSQL database ${redactPostgresUrl(location)} holds no ledger (no ${VERSION_TABLE} table in ${schema})`,
      );
    }
  } finally {
    await pool.end();
  }
}

/** `--db` as it may be shown in messages and logs: a URL's password masked. */
export function describeLocation(location: string): string {
  return isPostgresUrl(location) ? redactPostgresUrl(location) : location;
}
