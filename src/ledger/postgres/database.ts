import pg from 'pg';

/**
 * Connecting to PostgreSQL: the URL, the schema, the pool and the transaction helper.
 *
 * The URL is libpq's (`postgres://user@host:5432/db?sslmode=require`, …) plus one
 * parameter of ours, `schema=NAME`: the store keeps its tables in that schema
 * (created at the first start) by putting `-c search_path=NAME` into the connection's
 * `options`, so every connection of the pool, and nothing else, sees it. Without it,
 * the tables go where the server's `search_path` says (usually `public`); a URL that
 * sets `options=-c search_path=…` itself works too. The password is best left out of
 * the URL and given as `PGPASSWORD` (or `~/.pgpass`), which `pg` reads.
 */

export interface PostgresLocation {
  /** What `pg` is given: the URL without `schema`, with the search_path in `options`. */
  connectionString: string;
  /** The schema named by `?schema=`, or null (then the server's search_path decides). */
  schema: string | null;
}

/** Unquoted identifiers only: the name goes into `options` and DDL, where quoting would be fragile. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parsePostgresUrl(location: string): PostgresLocation {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new Error('the PostgreSQL URL is not a valid URL (postgres://user@host:5432/database)');
  }
  const schema = url.searchParams.get('schema');
  if (schema === null) return { connectionString: url.toString(), schema: null };
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`schema=${JSON.stringify(schema)}: a schema name is letters, digits and _ (not first), at most 63`);
  }
  url.searchParams.delete('schema');
  const options = url.searchParams.get('options');
  url.searchParams.set('options', `${options ? `${options} ` : ''}-c search_path=${schema}`);
  return { connectionString: url.toString(), schema };
}

/** The URL with its password (in the user part or a `password` parameter) masked, for messages and logs. */
export function redactPostgresUrl(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}

const INT8 = 20;
const DATE = 1082;

/**
 * Column types as the store wants them: `bigint` (credits, sums) as a JS number (the
 * store keeps balances within safe integers), `date` as its `YYYY-MM-DD` text rather
 * than a Date at local midnight. `timestamptz` stays a Date.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format !== 'binary' && oid === INT8) return (value: string) => Number(value);
    if (format !== 'binary' && oid === DATE) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export function createPool(location: PostgresLocation, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: location.connectionString,
    max,
    types,
    application_name: 'decide',
    // Give up on a stuck connect (or a wait for a free connection) rather than hang a request forever.
    connectionTimeoutMillis: 15_000,
  });
  // An idle connection the server closed (restart, failover) must not crash the
  // process; the pool drops it and the next query opens a fresh one.
  pool.on('error', () => {});
  return pool;
}

/** SQLSTATEs after which PostgreSQL has rolled the whole transaction back, so it can run again. */
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
const ATTEMPTS = 5;

export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: string } | null)?.code ?? '');
}

/**
 * Runs `work` in one transaction (READ COMMITTED) on one pooled connection: BEGIN,
 * work, COMMIT; ROLLBACK on any error. A deadlock or serialization failure (the
 * transaction was rolled back whole) is retried a few times; anything else is thrown.
 * A connection that failed mid-transaction is discarded, not returned to the pool.
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      if (!isRetryable(error) || attempt >= ATTEMPTS) throw error;
    } finally {
      client.release(broken);
    }
    // Let the transaction that won go first.
    await new Promise((resolve) => setTimeout(resolve, 2 ** attempt + Math.random() * 10));
  }
}
