import pg from 'pg';
import { redactPostgresUrl } from '../../src/ledger/postgres/database.js';
import { scaled } from './time.js';

/**
 * The PostgreSQL server the tests use: DECIDE_TEST_PG_URL, default the local one on
 * 127.0.0.1:5432, database `test` (each test ledger makes a schema of its own there).
 * Kept apart from vitest, as global setup and child processes read it too.
 */
export const PG_URL = process.env.DECIDE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Null when a connection to PG_URL opens; else a sentence saying it cannot, with the
 * URL (its password hidden) and the reason.
 */
export async function postgresUnreachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: scaled(3_000) });
  try {
    await client.connect();
    return null;
  } catch (error) {
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    return `PostgreSQL is not reachable at ${redactPostgresUrl(PG_URL)} (${reason})`;
  } finally {
    await client.end().catch(() => {});
  }
}
