// Row 1b, the service on PostgreSQL: `decide serve` on a PostgreSQL schema against
// `decide serve` on a SQLite file, the same instant engine, the same standard decision,
// in alternating slices at each BENCH_PG_CONCURRENCY. Issue 18's goal: the server's CPU
// per decision on PostgreSQL at most 1.5× SQLite's. Only the decide processes' CPU is
// counted (PostgreSQL's own server is not ours to spend less of).
import path from 'node:path';
import { STANDARD } from '../lib/bodies.js';
import { sideBySide } from '../lib/load.js';
import { benchSchema } from '../lib/pg-schema.js';
import { fmt, fmtInt, ratioLine, targetsTable } from '../lib/report.js';
import { expect, makeKeys, post, startDecide, startEngine, stopAll } from '../lib/servers.js';

const CPU_GOAL = 1.5;

export default {
  id: 'http-postgres',
  title: '1b Service on PostgreSQL',
  async run(ctx) {
    const { config } = ctx;
    const schema = await benchSchema(config.pgUrl);
    if (schema.skipped) return schema;
    const ledgers = { sqlite: path.join(ctx.tmp, 'http-sqlite.db'), postgres: schema.url };
    let engine, sqlite, postgres;
    try {
      const [[sqliteKey], [postgresKey]] = [await makeKeys(ledgers.sqlite), await makeKeys(ledgers.postgres)];
      engine = await startEngine();
      [sqlite, postgres] = await Promise.all([
        startDecide(config, { db: ledgers.sqlite, engineUrl: engine.url, name: 'sqlite' }),
        startDecide(config, { db: ledgers.postgres, engineUrl: engine.url, name: 'postgres' }),
      ]);
      const headers = (key) => ({ 'content-type': 'application/json', authorization: `Bearer ${key.key}` });
      const targets = {
        sqlite: { name: 'sqlite', url: `${sqlite.url}/v1/decisions`, headers: headers(sqliteKey), body: JSON.stringify(STANDARD) },
        postgres: { name: 'postgres', url: `${postgres.url}/v1/decisions`, headers: headers(postgresKey), body: JSON.stringify(STANDARD) },
      };
      for (const t of Object.values(targets)) {
        const res = await post(t.url, t.headers, STANDARD);
        expect(res.status === 200 && res.json?.result?.selected, `${t.name} answered ${res.status} ${res.text}`);
      }
      const pids = { sqlite: sqlite.pid, postgres: postgres.pid, engine: engine.pid, loadgen: 'self' };

      const lines = [];
      const details = [];
      const groups = {};
      for (const c of config.pgConcurrency) {
        ctx.progress(`row 1b: c=${c}, decide on SQLite and on PostgreSQL in ${config.slices} alternating slices`);
        const r = await sideBySide([targets.sqlite, targets.postgres], {
          connections: c,
          slices: config.slices,
          warmupMs: config.warmupMs,
          sliceWarmupMs: config.sliceWarmupMs,
          durationMs: config.durationMs,
          pids,
        });
        groups[c] = r;
        for (const t of Object.values(r)) ctx.checkErrors(`row 1b ${t.name} c=${c}`, t);
        details.push(targetsTable(r, (n) => n));
        const cpu = { sqlite: r.sqlite.cpuMsPerRequest.sqlite, postgres: r.postgres.cpuMsPerRequest.postgres };
        lines.push(
          ratioLine(`c=${c} server CPU ms per decision, PostgreSQL ÷ SQLite`, {
            ours: cpu.postgres,
            baseline: cpu.sqlite,
            oursText: `${fmt(cpu.postgres, 3)} ms`,
            baselineText: `${fmt(cpu.sqlite, 3)} ms`,
            max: CPU_GOAL,
            note: "the decide process's CPU over the measured windows (all its threads), per answered decision; PostgreSQL's own server is not counted",
          }),
          ratioLine(`c=${c} decisions/s, PostgreSQL ÷ SQLite`, {
            ours: r.postgres.perSecond,
            baseline: r.sqlite.perSecond,
            oursText: `${fmtInt(r.postgres.perSecond)}/s`,
            baselineText: `${fmtInt(r.sqlite.perSecond)}/s`,
          }),
        );
      }
      return { lines, details: details.join('\n\n'), data: { groups } };
    } finally {
      await stopAll(sqlite, postgres, engine);
      await schema.drop();
    }
  },
};
