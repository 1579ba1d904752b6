// A PostgreSQL schema of its own for a bench row or script, on BENCH_PG_URL's server:
// `url` names it (decide creates it on first use), `drop()` removes it and closes the
// admin connection. Null when the server cannot be reached, with the reason.
import { randomBytes } from 'node:crypto';
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
