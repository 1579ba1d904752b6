// Row 4b, ledger on PostgreSQL: charges/s of the store against raw INSERTs of a
// charge-like row through the same client (pg, a pool of the store's size and column
// types), at each BENCH_PG_CONCURRENCY, in a schema of its own (dropped after). Each
// worker has its own key and pass, so the figure is the store's work, not the row lock
// that orders the reserves of one pass.
import { randomUUID } from 'node:crypto';
import { alternateOps } from '../lib/ops.js';
import { ledgerLines, opsTable, storeOps } from '../lib/ledger.js';
import { ratioLine } from '../lib/report.js';
import { benchSchema } from '../lib/pg-schema.js';
import { makeKeys, openLedger } from '../lib/servers.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

export default {
  id: 'ledger-postgres',
  title: '4 Ledger (PostgreSQL)',
  async run(ctx) {
    const { config } = ctx;
    const { default: pg } = await import('pg');
    const schema = await benchSchema(config.pgUrl);
    if (schema.skipped) return schema;
    const url = schema.url;
    const maxC = Math.max(...config.pgConcurrency);
    let store, raw;
    try {
      const keys = await makeKeys(url, { keys: maxC });
      store = await openLedger(url);
      const { createPool, parsePostgresUrl } = await dist('ledger/postgres/database.js');
      raw = createPool(parsePostgresUrl(url), 10);
      await raw.query(`CREATE TABLE raw (id text PRIMARY KEY, key_id text NOT NULL, pass_id text NOT NULL, kind text NOT NULL,
                       cost integer NOT NULL, state text NOT NULL, day date NOT NULL, created_at timestamptz NOT NULL)`);
      const { charge, decision } = await storeOps(store, keys);
      const rawInsert = async (w) => {
        const now = new Date().toISOString();
        await raw.query(
          `INSERT INTO raw (id, key_id, pass_id, kind, cost, state, day, created_at) VALUES ($1, $2, $3, 'credits', 1, 'reserved', $4, $5)`,
          [randomUUID(), keys[w].keyId, keys[w].passId, now.slice(0, 10), now],
        );
      };
      const trips = await roundTrips(pg, () => decision(0));
      const lines = [
        ratioLine(`PostgreSQL round trips per decision's ledger work ÷ the goal's 3`, {
          ours: trips,
          baseline: 3,
          oursText: String(trips),
          baselineText: '3',
          max: 1,
          note: 'statements sent by authenticate + reserve + commit with its sample (no Idempotency-Key), BEGIN and COMMIT included',
        }),
      ];
      const details = [];
      const data = { roundTrips: trips };
      for (const c of config.pgConcurrency) {
        ctx.progress(`row 4: PostgreSQL store vs raw pg inserts, c=${c}`);
        const r = await alternateOps(
          [
            { name: 'raw', op: rawInsert },
            { name: 'charge', op: charge },
            { name: 'decision', op: decision },
          ],
          { concurrency: c, slices: config.slices, durationMs: config.ledgerMs, warmupMs: 300 },
        );
        data[c] = r;
        for (const x of Object.values(r)) ctx.noteMachine(`row 4 ${x.name}`, x.machineCores);
        lines.push(...ledgerLines('PostgreSQL', r, c));
        details.push(opsTable(r));
      }
      return { lines, details: details.join('\n\n'), data };
    } finally {
      await raw?.end();
      await store?.close();
      await schema.drop();
    }
  },
};

/** Statements `op` sends, over 10 runs: every pg client query is one round trip. */
async function roundTrips(pg, op) {
  const query = pg.Client.prototype.query;
  let sent = 0;
  pg.Client.prototype.query = function (...args) {
    sent++;
    return query.apply(this, args);
  };
  try {
    for (let i = 0; i < 10; i++) await op();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent / 10;
}
