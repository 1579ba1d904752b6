// Row 6, ledger lock: what a SQLite file locked by another process does to the routes
// that do not need to write it. `decide serve` on its file; this process holds
// `BEGIN EXCLUSIVE` on the file for BENCH_LOCK_MS (6 s) while 8 decisions wait for the
// lock, and probes GET /v1/metrics and GET / (the home page) every 25 ms, one at a
// time. The baseline is the same probes with the file free, in the same run. Goal:
// p99 under the lock ≤ 100 ms (it was 4.5 s when a decision sat out its busy timeout
// on the event loop).
import Database from 'better-sqlite3';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { STANDARD_12 } from '../lib/bodies.js';
import { fmt, overheadLine, ratioLine } from '../lib/report.js';
import { expect, makeKeys, startDecide, startEngine, stopAll } from '../lib/servers.js';

const PROBE_EVERY_MS = 25;

async function probe(url) {
  const started = performance.now();
  const res = await request(url);
  await res.body.text();
  return { ms: performance.now() - started, ok: res.statusCode === 200 };
}

/** Probes both routes, alternately, until `until()` is false; latencies in ms. */
async function probeWhile(base, until) {
  const latencies = [];
  let failed = 0;
  for (let i = 0; until(); i++) {
    const { ms, ok } = await probe(`${base}${i % 2 ? '/' : '/v1/metrics'}`);
    latencies.push(ms);
    if (!ok) failed++;
    await sleep(PROBE_EVERY_MS);
  }
  return { latencies, failed };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

export default {
  id: 'ledger-lock',
  title: '6 Ledger lock',
  async run(ctx) {
    const lockMs = Number(process.env.BENCH_LOCK_MS ?? 6_000);
    const db = path.join(ctx.tmp, 'lock.db');
    const [key] = await makeKeys(db);
    let engine, decide;
    try {
      engine = await startEngine({ delayMs: 0 });
      decide = await startDecide(ctx.config, { db, engineUrl: engine.url, name: 'lock' });
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };

      ctx.progress('row 6: probes with the file free');
      const freeUntil = performance.now() + 2_000;
      const free = await probeWhile(decide.url, () => performance.now() < freeUntil);

      ctx.progress(`row 6: probes while another process holds the file for ${lockMs} ms`);
      const holder = new Database(db);
      holder.exec('BEGIN EXCLUSIVE');
      const lockedUntil = performance.now() + lockMs;
      const decisions = Array.from({ length: 8 }, () =>
        request(`${decide.url}/v1/decisions`, { method: 'POST', headers, body: JSON.stringify(STANDARD_12) }).then(async (res) => {
          await res.body.text();
          return res.statusCode;
        }),
      );
      const locked = await probeWhile(decide.url, () => performance.now() < lockedUntil);
      holder.exec('COMMIT');
      holder.close();
      const statuses = await Promise.all(decisions);
      expect(locked.failed === 0 && free.failed === 0, `probes failed: ${locked.failed} under the lock, ${free.failed} without`);
      const answered = statuses.filter((s) => s === 200).length;
      const unavailable = statuses.filter((s) => s === 503).length;

      const p99 = quantile(locked.latencies, 0.99);
      const base99 = quantile(free.latencies, 0.99);
      return {
        lines: [
          overheadLine('p99 of GET /v1/metrics and GET /, a held lock − the file free', {
            oursMs: p99,
            baselineMs: base99,
            max: 100,
            note: `${locked.latencies.length} probes under the lock; p50 ${fmt(quantile(locked.latencies, 0.5))} ms`,
          }),
          ratioLine('p99 under the lock ÷ p99 with the file free', { ours: p99, baseline: base99, digits: 2 }),
        ],
        details: `The 8 decisions that waited for the lock: ${answered} answered 200 once it went, ${unavailable} answered 503 ledger_unavailable (a ${lockMs} ms lock outlasts the 5 s wait).`,
      };
    } finally {
      await stopAll(decide, engine);
    }
  },
};
