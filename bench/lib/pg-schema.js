// A PostgreSQL schema of its own for a bench row or script, on BENCH_PG_URL's server:
// `url` names it (decide creates it on first use), `drop()` removes it and closes the
// admin connection. Null when the server cannot be reached, with the reason.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';

export async function benchSchema(pgUrl) {
  const admin = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `PostgreSQL at ${pgUrl} cannot be reached (${error.code ?? error.message}); set BENCH_PG_URL` };
  }
  const schema = `decide_bench_${randomBytes(6).toString('hex')}`;
  const url = new URL(pgUrl);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await admin.end();
    },
  };
}

/**
 * The ledgers of an A/B script (ledger-ab.js, http-ab.js): each build's a file in
 * `dir`, or with BENCH_AB_PG set a schema of its own on that server. `drop()` removes
 * the schemas made.
 */
export function abLedgers(dir) {
  const pgUrl = process.env.BENCH_AB_PG;
  const schemas = [];
  return {
    async location(name) {
      if (!pgUrl) return path.join(dir, `${name}.db`);
      const schema = await benchSchema(pgUrl);
      if (schema.skipped) throw new Error(schema.skipped);
      schemas.push(schema);
      return schema.url;
    },
    async drop() {
      for (const schema of schemas.splice(0)) await schema.drop();
    },
  };
}
