import type { Limits, Store } from './store.js';
import { openSqliteStore } from './sqlite/store.js';
import { redactPostgresUrl } from './postgres/database.js';
import { openPostgresStore, type PostgresStoreOptions } from './postgres/store.js';

/** True when `--db` names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * How the service uses the ledger. `decisionDeadlineMs` (DECIDE_ENGINE_TIMEOUT_MS)
 * tells the PostgreSQL store when a reservation can only have been left by a server
 * that died; SQLite, with one server per file, releases those at start-up instead
 * and ignores these options.
 */
export type OpenOptions = PostgresStoreOptions;

/**
 * Opens the ledger `--db` names: a `postgres://` URL (optionally `?schema=NAME`) or a
 * SQLite file path (created and migrated on first use). Async because the PostgreSQL
 * store has to connect.
 */
export async function openStore(location: string, limits: Limits, options: OpenOptions = {}): Promise<Store> {
  if (isPostgresUrl(location)) return openPostgresStore(location, limits, options);
  return openSqliteStore(location, limits);
}

/** `--db` as it may be shown in messages and logs: a URL's password masked. */
export function describeLocation(location: string): string {
  return isPostgresUrl(location) ? redactPostgresUrl(location) : location;
}
