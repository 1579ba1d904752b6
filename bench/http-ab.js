#!/usr/bin/env node
// Side by side, in one run: `decide serve` of two builds, each on a ledger of its own,
// with the instant bench engine, driven by the same load generator in alternating
// slices. How the branch's changes to a decision's path were measured end to end:
//
//   node bench/http-ab.js <before-root> <after-root>
//
// A root is a checkout with `dist/` built (and `bin/`). BENCH_CONCURRENCY (1,16),
// BENCH_SCALE and BENCH_DECIDE_STDOUT apply as in bench/run.js. Prints, per
// concurrency, decisions/s, p50/p99 and the server's CPU per decision, with
// after ÷ before ratios, and how loaded the machine was. With BENCH_AB_PG set to a
// PostgreSQL URL, each build serves from a schema of its own on that server (dropped
// after) instead of a SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAllNow } from './children.js';
import { readConfig } from './lib/config.js';
import { sideBySide } from './lib/load.js';
import { STANDARD } from './lib/bodies.js';
import { ledgerCalls } from './lib/ledger-calls.js';
import { abLedgers } from './lib/pg-schema.js';
import { LIMITS, startDecide, startEngine, stopAll } from './lib/servers.js';

const [rootA, rootB] = process.argv.slice(2).map((r) => r && path.resolve(r));
if (!rootA || !rootB) {
  process.stderr.write('usage: node bench/http-ab.js <before-root> <after-root>\n');
  process.exit(2);
}
for (const name of Object.keys(process.env)) if (/^(DECIDE_|OPENAI_)/.test(name)) delete process.env[name];
process.on('exit', killAllNow);
const config = readConfig();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-http-ab-'));
const ledgers = abLedgers(tmp);

/** A funded key on a ledger made by that build (each build migrates its own file). */
async function keyOf(root, db) {
  const { openStore } = await import(path.join(root, 'dist', 'ledger', 'open.js'));
  const store = await openStore(db, LIMITS, { sweepIntervalMs: 0 });
  try {
    const calls = ledgerCalls(store);
    const key = await calls.newKey();
    await calls.fund(key.passId, 10_000_000, 'bench');
    return key.key;
  } finally {
    await store.close();
  }
}

let engine, a, b;
try {
  engine = await startEngine();
  const sides = [];
  for (const [name, root] of [
    ['before', rootA],
    ['after', rootB],
  ]) {
    const db = await ledgers.location(name);
    const key = await keyOf(root, db);
    const server = await startDecide(config, { db, engineUrl: engine.url, name, bin: path.join(root, 'bin', 'decide.js') });
    sides.push({ name, server, key });
  }
  [a, b] = sides.map((s) => s.server);
  const loadStart = os.loadavg();
  const out = [];
  for (const c of config.concurrency) {
    process.stderr.write(`http-ab: c=${c}\n`);
    const r = await sideBySide(
      sides.map((s) => ({
        name: s.name,
        url: `${s.server.url}/v1/decisions`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
        body: JSON.stringify(STANDARD),
      })),
      {
        connections: c,
        slices: Math.max(config.slices, 4),
        warmupMs: config.warmupMs,
        sliceWarmupMs: config.sliceWarmupMs,
        durationMs: config.durationMs,
        pids: { before: a.pid, after: b.pid, engine: engine.pid },
      },
    );
    for (const t of Object.values(r)) {
      out.push(
        `c=${c} ${t.name.padEnd(6)} ${t.perSecond.toFixed(0).padStart(6)}/s  p50 ${t.latencyMs.p50.toFixed(2)} ms  p99 ${t.latencyMs.p99.toFixed(2)} ms  ` +
          `server cpu ${t.cpuMsPerRequest[t.name].toFixed(3)} ms/decision  errors ${t.errors}  cores not ours ${t.machineCores?.notOurs.toFixed(2) ?? '?'}`,
      );
    }
    const x = r.before;
    const y = r.after;
    out.push(
      `c=${c} after ÷ before: decisions/s ×${(y.perSecond / x.perSecond).toFixed(2)}, server CPU per decision ×${(y.cpuMsPerRequest.after / x.cpuMsPerRequest.before).toFixed(2)}, ` +
        `p50 ×${(y.latencyMs.p50 / x.latencyMs.p50).toFixed(2)}, p99 ×${(y.latencyMs.p99 / x.latencyMs.p99).toFixed(2)}`,
    );
  }
  out.push(
    `load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} at the start, ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
  process.stdout.write(out.join('\n') + '\n');
} finally {
  await stopAll(a, b, engine);
  await ledgers.drop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
