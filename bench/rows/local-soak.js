// Row 9, the memory soak: `decide serve` on the tiny model answers BENCH_SOAK_DECISIONS
// (10,000) decisions from BENCH_SOAK_CONCURRENCY (8) clients, one in ten a 4-fact
// stress decision, every context a little different (as real traffic is, so no cache
// keyed by the prompt is hit by accident). Its RSS is read every 100 decisions. Goal:
// RSS at the last decision within 10 % of RSS at decision 1,000, when start-up and
// first allocations are behind it.
//
// The server runs pinned to one core where `taskset` exists, so it runs one llama.cpp
// thread whatever DECIDE_THREADS does (a 2-thread server on a busy 2-core machine
// answers ~1 decision/s, and the soak would take hours). The tiny model costs almost
// nothing to evaluate: what the soak sees is the plumbing's memory, not a model's.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { memoryMbOf } from '../children.js';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { closedLoop } from '../lib/closed-loop.js';
import { tinyModel } from '../lib/config.js';
import { fmt, fmtInt, ratioLine } from '../lib/report.js';
import { expect, makeKeys, post, startLocalDecide, stopAll } from '../lib/servers.js';

const SETTLED = 1_000;
const EVERY = 100;
const TASKSET = '/usr/bin/taskset';

export default {
  id: 'local-soak',
  title: '9 Local soak',
  async run(ctx) {
    const { config } = ctx;
    const modelPath = tinyModel();
    if (!existsSync(modelPath)) return { skipped: `no model at ${modelPath}; set BENCH_TINY_MODEL` };
    try {
      await import('node-llama-cpp');
    } catch (error) {
      return { skipped: `node-llama-cpp is not installed (${String(error.message).split('\n')[0]})` };
    }
    const db = path.join(ctx.tmp, 'soak.db');
    const [key] = await makeKeys(db);
    const pinned = existsSync(TASKSET);
    const decide = await startLocalDecide(config, { db, modelPath, threads: 1, name: 'soak', command: pinned ? [TASKSET, '-c', '0'] : [] });
    try {
      const url = `${decide.url}/v1/decisions`;
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
      const checked = await post(url, headers, body(0));
      expect(checked.status === 200, `a decision answered ${checked.status} ${checked.text.slice(0, 300)}`);

      const total = config.soakDecisions;
      ctx.progress(`row 9: ${fmtInt(total)} decisions on ${path.basename(modelPath)}, c=${config.soakConcurrency}, RSS every ${EVERY}`);
      const samples = [];
      const started = performance.now();
      let errors = 0;
      let firstError = null;
      for (let done = 0; done < total; done += EVERY) {
        const r = await closedLoop({
          url,
          headers,
          body: (n) => body(done + n),
          concurrency: config.soakConcurrency,
          count: Math.min(EVERY, total - done),
        });
        errors += Object.values(r.statuses).reduce((a, b) => a + b, 0) - r.latencies.length;
        firstError ??= r.sample;
        samples.push({ decisions: done + EVERY, seconds: (performance.now() - started) / 1000, ...memoryMbOf(decide.pid) });
        if ((done + EVERY) % 1_000 === 0) ctx.progress(`row 9: ${fmtInt(done + EVERY)} decisions, RSS ${fmtInt(samples.at(-1).rss)} MB`);
      }
      const at = (n) => samples.find((s) => s.decisions >= n);
      const [settled, last] = [at(SETTLED), samples.at(-1)];
      const highest = Math.max(...samples.filter((s) => s.decisions >= SETTLED).map((s) => s.rss));
      ctx.checkErrors('row 9 soak', { errors, statuses: {}, failures: {}, firstErrorBody: firstError });
      return {
        lines: [
          ratioLine(`RSS at decision ${fmtInt(last.decisions)} ÷ at ${fmtInt(SETTLED)}`, {
            ours: last.rss,
            baseline: settled.rss,
            oursText: `${fmtInt(last.rss)} MB`,
            baselineText: `${fmtInt(settled.rss)} MB`,
            max: 1.1,
            digits: 2,
            note: `highest after ${fmtInt(SETTLED)}: ${fmtInt(highest)} MB; ${fmt(last.decisions / last.seconds, 1)} decisions/s; ${errors} errors`,
          }),
        ],
        details: detailsOf(samples, { pinned, modelPath }),
        data: { samples, pinned, errors },
      };
    } finally {
      await stopAll(decide);
    }
  },
};

/** The n-th decision's body: one in ten a stress decision; a context no earlier decision had. */
function body(n) {
  const base = n % 10 === 9 ? STRESS : STANDARD;
  return JSON.stringify({ ...base, context: `${base.context} This is request ${n}.` });
}

function detailsOf(samples, { pinned, modelPath }) {
  const marks = samples.filter((s, i) => s.decisions % 1_000 === 0 || i === samples.length - 1);
  const row = (s) =>
    `  ${fmtInt(s.decisions).padStart(7)}  ${fmtInt(s.rss).padStart(5)} MB  peak ${fmtInt(s.peak).padStart(5)} MB  ${fmt(s.seconds, 0).padStart(5)} s`;
  return [
    `${path.basename(modelPath)}, one server${pinned ? ' pinned to core 0' : ''}, DECIDE_THREADS=1; decisions, RSS, peak RSS, time:`,
    ...marks.map(row),
  ].join('\n');
}
