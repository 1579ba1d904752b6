import type { Limits, Store } from './store.js';
import { openSqliteStore } from './sqlite/store.js';

/** True when `--db` names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Opens the ledger `--db` names: a `postgres://` URL or a SQLite file path (created
 * and migrated on first use). Async because the PostgreSQL store has to connect.
 */
export async function openStore(location: string, limits: Limits): Promise<Store> {
  if (isPostgresUrl(location)) {
    throw new Error('the PostgreSQL ledger is not available in this build; use a SQLite file path');
  }
  return openSqliteStore(location, limits);
}
