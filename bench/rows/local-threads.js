// The local engine's threads, on the tiny model: standard decisions a second with 1
// and 2 llama.cpp threads, 1 and 8 decisions under way, on the machine as it is and
// again beside two busy-loop processes (a machine shared with other work). Each
// figure comes from a process of its own (bench/local/decisions.js: llama.cpp's
// threads are per process), one after the other. The default (half the cores, at
// least 1; engine/local/threads.ts) was chosen from this table; the ratio lines
// compare 1 thread against 2 within each condition.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BENCH } from '../lib/config.js';
import { localModel } from '../lib/local.js';
import { fmt, ratioLine, table } from '../lib/report.js';

export default {
  id: 'local-threads',
  title: '5c Local threads',
  async run(ctx) {
    const { modelPath, skipped } = await localModel();
    if (skipped) return { skipped };
    const seconds = Math.max(1, Math.round(5 * ctx.config.scale));
    const rows = [];
    for (const load of ['as it is', 'two busy loops']) {
      const loops = load === 'two busy loops' ? [busyLoop(), busyLoop()] : [];
      try {
        for (const threads of [1, 2]) {
          for (const concurrency of [1, 8]) {
            ctx.progress(`row 5c: ${threads} thread(s), c=${concurrency}, machine ${load}`);
            rows.push({ load, ...(await measure(modelPath, threads, concurrency, seconds)) });
          }
        }
      } finally {
        for (const loop of loops) loop.kill('SIGKILL');
      }
    }
    const find = (load, threads, concurrency) =>
      rows.find((r) => r.load === load && r.threads === threads && r.concurrency === concurrency);
    const lines = [];
    for (const load of ['as it is', 'two busy loops']) {
      for (const concurrency of [1, 8]) {
        const [one, two] = [find(load, 1, concurrency), find(load, 2, concurrency)];
        lines.push(
          ratioLine(`1 vs 2 threads, c=${concurrency}, machine ${load}: decisions/s`, {
            ours: one.perSecond,
            baseline: two.perSecond,
            oursText: fmt(one.perSecond, 1),
            baselineText: fmt(two.perSecond, 1),
          }),
        );
      }
    }
    const details = table(
      rows.map((r) => [r.load, r.threads, r.concurrency, fmt(r.perSecond, 1), fmt(r.p50, 0)]),
      ['machine', 'threads', 'c', 'decisions/s', 'p50 ms'],
    );
    return { lines, details: `model ${path.basename(modelPath)}, standard decisions, ${seconds} s each:\n${details}`, data: { rows } };
  },
};

/** A process that keeps one core busy until killed. */
function busyLoop() {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

function measure(modelPath, threads, concurrency, seconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(BENCH, 'local', 'decisions.js'), modelPath, String(threads), String(concurrency), String(seconds)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`decisions.js exited ${code}: ${err.split('\n')[0]}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}
