import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, parsePostgresUrl } from '../../src/ledger/postgres/database.js';
import { PG_URL } from '../support/postgres-server.js';
import { AUDIT_QUERIES, auditWith, statesOf } from './helpers.js';

/**
 * PostgreSQL for the tests: the server in DECIDE_TEST_PG_URL (test/support/postgres-server.ts),
 * and a schema of its own for each test ledger (`decide_test_<random>`), named in the
 * store's URL by `?schema=` and dropped after.
 */
export { PG_URL };

export function newSchemaName(): string {
  return `decide_test_${randomBytes(6).toString('hex')}`;
}

/** The store's URL for `schema`: the test server's URL plus `?schema=`. */
export function urlFor(schema: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** Runs `work` on a one-off connection to the test database (no schema of ours on its path). */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await withAdmin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

/** SQL reading the timestamp `sql` as whole microseconds since the epoch (exact, as PostgreSQL stores it). */
export const MICROS = (sql: string): string => `CAST(EXTRACT(EPOCH FROM ${sql}) * 1000000 AS BIGINT)`;

/** `?` placeholders (as SQLite writes them) → `$1, $2, …`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Timestamps as the ISO strings SQLite stores, so one expectation reads both. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
}

/**
 * One test ledger in its own schema, seen from outside the store, as an auditor would:
 * its own small pool, with the store's column types (bigint as number, date as text).
 */
export class PgLedger {
  readonly schema = newSchemaName();
  readonly url = urlFor(this.schema);
  private pool: pg.Pool | null = null;

  private get reader(): pg.Pool {
    this.pool ??= createPool(parsePostgresUrl(this.url), 2);
    return this.pool;
  }

  async rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const { rows } = await this.reader.query(numbered(sql), params);
    return rows.map(plain) as T[];
  }

  async exec(sql: string, params: unknown[] = []): Promise<void> {
    await this.reader.query(numbered(sql), params);
  }

  /** The database's clock now, in microseconds: what its leases are measured on. */
  async clockMicros(): Promise<number> {
    const [{ now }] = await this.rows<{ now: number }>(`SELECT ${MICROS('clock_timestamp()')} AS now`);
    return now;
  }

  audit(): Promise<string[]> {
    return auditWith((sql) => this.rows(sql));
  }

  async chargeStates(): Promise<Record<string, number>> {
    return statesOf(await this.rows<{ state: string; n: number }>(AUDIT_QUERIES.chargeStates));
  }

  /**
   * Moves every lease now in the ledger (reservations, running idempotency records)
   * into the past, as if deadline + margin had gone by since: they are now what a
   * server that died left behind.
   */
  async outliveLeases(): Promise<void> {
    await this.exec(`UPDATE charges SET expires_at = clock_timestamp() - interval '1 second' WHERE state = 'reserved'`);
    await this.exec(`UPDATE idempotency SET running_until = clock_timestamp() - interval '1 second' WHERE state = 'running'`);
  }

  /**
   * Every value of every table as bytes: bytea as its raw bytes, the rest as text.
   * What a reader of the database (or of a dump of it) could find.
   */
  async everything(): Promise<Buffer> {
    const tables = await this.rows<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = ?`, [
      this.schema,
    ]);
    const parts: Buffer[] = [];
    for (const { table_name } of tables) {
      const { rows } = await this.reader.query(`SELECT * FROM ${table_name}`);
      for (const row of rows) {
        for (const value of Object.values(row)) {
          if (Buffer.isBuffer(value)) parts.push(value);
          else if (value !== null) parts.push(Buffer.from(value instanceof Date ? value.toISOString() : String(value)));
        }
      }
    }
    return Buffer.concat(parts);
  }

  /** Ends the reader and drops the schema. */
  async dispose(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
    await dropSchema(this.schema);
  }
}
