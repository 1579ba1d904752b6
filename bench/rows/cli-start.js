// Row 7, CLI start-up: how long `decide` takes before it does anything, against
// `node -e 0`, the least any node program takes, started the same way in the same
// run. Runs of the four targets alternate, BENCH_CLI_RUNS (20) of each, after 3
// warm-up runs; the ratios are of medians. Goals: `decide --help` and
// `decide usage --help` ≤ 2x; `decide ask` to its first request ≤ 3x (the request
// arriving at a loopback server here, which refuses the key so the CLI exits at once).
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/config.js';
import { fmt, ratioLine, table } from '../lib/report.js';

const BIN = path.join(ROOT, 'bin', 'decide.js');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** Milliseconds from spawn to `until` (exit, unless given): resolves once the child has exited. */
function timed(args, env, until) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    let at = null;
    until?.then(() => (at ??= process.hrtime.bigint()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const end = process.hrtime.bigint();
      if (until && at === null) return reject(new Error(`decide ${args.slice(1).join(' ')} exited ${code} without a request: ${stderr}`));
      resolve({ ms: Number((at ?? end) - started) / 1e6, code });
    });
  });
}

export default {
  id: 'cli-start',
  title: '7 CLI start-up',
  async run(ctx) {
    const runs = Number(process.env.BENCH_CLI_RUNS ?? 20);
    const { generateKey } = await import(pathToFileURL(path.join(ROOT, 'dist', 'contract', 'key.js')).href);
    // The service `ask` calls: it notes when each request arrives and refuses the key (exit 3, no retry).
    let arrived = null;
    const server = http.createServer((req, res) => {
      arrived?.();
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unknown key', code: 'unauthorized' }));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = { ...process.env, DECIDE_URL: `http://127.0.0.1:${server.address().port}`, DECIDE_API_KEY: generateKey(), NO_COLOR: '1' };
    const ask = [
      BIN,
      'ask',
      'Should we ship the release on Friday?',
      '--context',
      'All tests pass. The on-call engineer is away next week.',
      '--json',
    ];
    const targets = {
      node: () => timed(['-e', '0'], env),
      help: () => timed([BIN, '--help'], env),
      usageHelp: () => timed([BIN, 'usage', '--help'], env),
      ask: () => timed(ask, env, new Promise((resolve) => (arrived = resolve))),
    };
    const times = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
    try {
      ctx.progress(`row 7: node -e 0, decide --help, decide usage --help and decide ask, ${runs} runs each, alternating`);
      for (let i = 0; i < 3 + runs; i++) {
        for (const [name, run] of Object.entries(targets)) {
          const { ms, code } = await run();
          const expected = name === 'ask' ? 3 : 0;
          if (code !== expected) throw new Error(`${name} exited ${code}, not ${expected}`);
          if (i >= 3) times[name].push(ms);
        }
      }
    } finally {
      server.close();
    }
    const base = median(times.node);
    const line = (measure, name, max) =>
      ratioLine(measure, {
        ours: median(times[name]),
        baseline: base,
        oursText: `${fmt(median(times[name]), 1)} ms`,
        baselineText: `${fmt(base, 1)} ms`,
        max,
        digits: 2,
      });
    const details = table(
      Object.entries(times).map(([name, xs]) => [name, xs.length, fmt(quantile(xs, 0), 1), fmt(median(xs), 1), fmt(quantile(xs, 0.9), 1)]),
      ['target', 'runs', 'min ms', 'p50 ms', 'p90 ms'],
    );
    return {
      lines: [
        line('p50 decide --help ÷ node -e 0', 'help', 2),
        line('p50 decide usage --help ÷ node -e 0', 'usageHelp', 2),
        line('p50 decide ask to its first request ÷ node -e 0', 'ask', 3),
      ],
      details,
      data: times,
    };
  },
};
