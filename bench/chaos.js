#!/usr/bin/env node
// Nothing is lost under load and faults: `npm run bench:chaos` (builds first) or
// `node bench/chaos.js`. Two runs, each `BENCH_CHAOS_DECISIONS` decisions from
// `BENCH_CHAOS_CLIENTS` concurrent clients over keys with known balances, with faults
// injected throughout (see bench/chaos/driver.js and bench/README.md, "Chaos"):
//
//   (a) SQLite, one `decide serve`;
//   (b) PostgreSQL, two `decide serve` on one schema (DECIDE_TEST_PG_URL, default
//       postgres://postgres@127.0.0.1:5432/test; a schema of its own, dropped after).
//
// Settings (env):
//   BENCH_CHAOS_DECISIONS=10000   requests per run
//   BENCH_CHAOS_CLIENTS=200       concurrent clients
//   BENCH_CHAOS_DB=sqlite,postgres  which runs
//   BENCH_CHAOS_KEEP=1            keep the ledger (temp folder, schema) for a look afterwards
//   BENCH_CHAOS_BUSY=0            busy loops beside the runs (2: a starved 2-core machine)
//   BENCH_CHAOS_OUT=bench/chaos-results.json
//
// Prints the table; exits 1 when a check failed or anything was lost.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { killAllNow } from './children.js';
import { ROOT, runChaos } from './chaos/driver.js';
import { chaosTable, failedChecks } from './chaos/report.js';
import { startBusyLoops } from './lib/busy.js';

function intEnv(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, not "${raw}"`);
  return n;
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

async function main() {
  const decisions = intEnv('BENCH_CHAOS_DECISIONS', 10_000);
  const clients = intEnv('BENCH_CHAOS_CLIENTS', 200);
  const dbs = (process.env.BENCH_CHAOS_DB ?? 'sqlite,postgres')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const busy = intEnv('BENCH_CHAOS_BUSY', 0, 0);
  const results = [];
  for (const db of dbs) {
    if (db !== 'sqlite' && db !== 'postgres') throw new Error(`BENCH_CHAOS_DB: unknown database "${db}"`);
    process.stderr.write(`chaos: ${db}, ${decisions} decisions from ${clients} clients${busy ? `, ${busy} busy loops beside` : ''}\n`);
    const loops = busy > 0 ? startBusyLoops(busy) : null;
    try {
      const result = await runChaos({
        db,
        decisions,
        clients,
        keep: process.env.BENCH_CHAOS_KEEP === '1',
        log: (line) => process.stderr.write(`  ${line}\n`),
      });
      result.figures.busyLoops = busy;
      results.push(result);
    } finally {
      await loops?.stop();
    }
  }
  process.stdout.write('\n' + chaosTable(results) + '\n');
  const failed = failedChecks(results);
  if (failed) process.stdout.write('\n' + failed + '\n');
  const out = path.resolve(ROOT, process.env.BENCH_CHAOS_OUT ?? 'bench/chaos-results.json');
  writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), results }, null, 2) + '\n');
  process.stderr.write(`chaos: results in ${path.relative(ROOT, out)}\n`);
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`chaos: ${error.stack ?? error}\n`);
  process.exit(2);
});
