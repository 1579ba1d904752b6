import pg from 'pg';
import { withRetries, type RetryOptions } from '../../net/retry.js';

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
  // Nor one checked out: a backend terminated (pg_terminate_backend, a restart) while
  // its connection is lent out and between two queries makes pg emit 'error' on the
  // client, which the pool only listens for while the client is idle. That includes the
  // moment between a new connection's last handshake message and the caller receiving
  // it (one TCP read can hold both ReadyForQuery and the termination), so the listener
  // goes on at 'connect', before the pool hands the client out. The failure still
  // reaches the next query on that connection, which then fails and is discarded.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * The store's statements as named prepared statements (`{ name, text }`, which
 * `query` takes in place of the text): each connection parses and plans a statement
 * once, then only binds and runs it, where an unnamed one is parsed again every time.
 * A decision's ledger work is a dozen short statements, so this is most of the
 * server's work per statement (a reserve + commit: 20–40 % more charges/s on loopback).
 * pg prepares a name on each connection the first time it runs there (a new
 * connection after a lost one too); names are `decide.<group>.<key>`, unique per text.
 */
export function prepared<K extends string>(group: string, texts: Record<K, string>): Record<K, pg.QueryConfig> {
  const out = {} as Record<K, pg.QueryConfig>;
  for (const key of Object.keys(texts) as K[]) out[key] = { name: `decide.${group}.${key}`, text: texts[key] };
  return out;
}

/** SQLSTATEs after which PostgreSQL has rolled the whole transaction back, so it can run again. */
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
/** Attempts at a transaction that lost a deadlock or a serialization conflict. */
const ATTEMPTS = 5;

export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: string } | null)?.code ?? '');
}

/**
 * The connection itself went: the server terminated the backend (`pg_terminate_backend`,
 * a restart, a failover: 57P01–57P03, class 08) or the socket broke. A transaction whose
 * COMMIT had not been sent did not commit; one whose COMMIT was in flight may have.
 */
export function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  if (typeof code === 'string' && ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code)) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i.test(message)
  );
}

/**
 * Runs `work` in one transaction (READ COMMITTED) on one pooled connection: BEGIN,
 * work, COMMIT; ROLLBACK on any error. Run again, a few times, when it certainly did
 * not commit: a deadlock or serialization failure (rolled back whole), or a connection
 * lost before COMMIT was sent (the server drops an open transaction with its
 * connection), so `work` must be safe to repeat. A connection lost during COMMIT is
 * thrown: only the caller can tell whether it committed. Anything else is thrown. A
 * connection that failed is discarded, not returned to the pool.
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  /** Whether the attempt that just failed had sent its COMMIT. */
  let committing = false;
  const once = async (): Promise<T> => {
    committing = false;
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      committing = true;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      if (isConnectionLoss(error)) broken ??= error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  };
  return withRetries(once, {
    ...retries(pool),
    retryable: (error, attempt) => {
      if (isRetryable(error)) return attempt < ATTEMPTS;
      // pg refuses, without sending it, a statement on a connection it already knows is
      // dead: then even a COMMIT certainly did not happen.
      return isConnectionLoss(error) && (!committing || /not queryable/.test((error as Error).message));
    },
  });
}

/**
 * Attempts and waits for the ledger's retries. Every idle connection of the pool may
 * have died with a lost one; each attempt discards one, so a lost connection is
 * allowed one more attempt than the pool has connections. The backoff lets the
 * transaction that won go first (or the server come back).
 */
function retries(pool: pg.Pool): Omit<RetryOptions, 'retryable'> {
  const max = (pool as unknown as { options?: { max?: number } }).options?.max ?? 10;
  return { attempts: Math.max(ATTEMPTS, max + 1), backoff: { baseMs: 2, maxMs: 250, jitterMs: 10 } };
}

/**
 * One statement outside a transaction, run again when the connection was lost under
 * it. Only for statements that may safely run twice: reads, and writes whose guard
 * makes a second run change nothing.
 */
export async function queryAgain<R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string | pg.QueryConfig,
  params: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return withRetries(() => pool.query<R>(sql, params), { ...retries(pool), retryable: isConnectionLoss });
}
