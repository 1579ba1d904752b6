#!/usr/bin/env node
// decide throughput/latency bench: `npm run bench` (builds first) or `node bench/run.js`.
//
// Three child processes on loopback: an instant System One engine (bench/engine-server.js),
// `decide serve` on a temp SQLite DB wired to it, and the baseline, a bare Hono JSON echo
// (bench/echo-server.js). This process is the load generator (undici Pool, closed loop).
// Because the engine answers at once, what is measured is decide's own overhead: HTTP
// parsing, auth (SHA-256 + SQLite lookup), validation, the ledger's reserve/commit
// transactions, the engine client round trip over loopback, metrics and JSON.
//
// Settings (env):
//   BENCH_CONCURRENCY=1,16,64     requests in flight, one group of rows per value
//   BENCH_WARMUP_MS=2000          unrecorded warm-up before a row's first slice
//   BENCH_DURATION_MS=8000        measured per row, split into BENCH_SLICES=4 slices, each
//                                 after BENCH_SLICE_WARMUP_MS=250 of unrecorded load
//   BENCH_STRESS=1                0 skips the stress-depth row
//   BENCH_STRESS_CONCURRENCY=16   the group the stress row runs in (else the first group)
//   BENCH_DECIDE_STDOUT=pipe      decide's access log goes down a pipe this process drains
//                                 (what a log collector sees); `null` sends it to /dev/null
//   BENCH_CPU_PROF=1              decide serve runs with --cpu-prof, profile in bench/profiles/
//                                 (summarise: node bench/profile-top.js)
//   BENCH_OUT=bench/results.json
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cpuMsOf, freePort, killAllNow, machineCpuMs, startServer, stop, stopAll } from './children.js';
import { request } from 'undici';
import { createTarget, summarise } from './load.js';

const run = promisify(execFile);
const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const DECIDE = path.join(ROOT, 'bin', 'decide.js');

function intEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, not "${raw}"`);
  return n;
}

// The children get exactly the decide settings below, not whatever the caller's shell holds.
for (const name of Object.keys(process.env)) if (/^(DECIDE_|OPENAI_)/.test(name)) delete process.env[name];

const CONFIG = {
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map((s) => Number(s.trim())).filter((n) => n > 0),
  stressConcurrency: intEnv('BENCH_STRESS_CONCURRENCY', 16),
  warmupMs: intEnv('BENCH_WARMUP_MS', 2_000),
  durationMs: intEnv('BENCH_DURATION_MS', 8_000), // measured per row, split into slices
  slices: Math.max(1, intEnv('BENCH_SLICES', 4)),
  sliceWarmupMs: intEnv('BENCH_SLICE_WARMUP_MS', 250),
  stress: process.env.BENCH_STRESS !== '0',
  cpuProf: process.env.BENCH_CPU_PROF === '1',
  out: path.resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results.json'),
  decideStdout: process.env.BENCH_DECIDE_STDOUT === 'null' ? 'null' : 'pipe',
  credits: 10_000_000,
};

// A 4-sentence context: a stress decision makes 1 base call + 4 leave-one-fact-out calls.
const CONTEXT =
  'The team already runs PostgreSQL in production and knows it well. ' +
  'Billing needs strict multi-row transactions and an audit trail. ' +
  'Only two engineers share the on-call rotation. ' +
  'The budget for new managed infrastructure this year is small.';
const STANDARD = {
  mode: 'choice',
  question: 'Which database should the team adopt for the new billing service?',
  context: CONTEXT,
  options: ['PostgreSQL', 'MongoDB', 'DynamoDB'],
};
const STRESS = { ...STANDARD, depth: 'stress' };

// ---- cleanup: every child goes, whatever happens ----------------------------------------
let tmp = null;
let stopping = false;
process.on('exit', () => {
  killAllNow();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\nbench: ${signal}, stopping the children\n`);
    stopAll(2_000).finally(() => process.exit(130));
  });
}

// ---- helpers ----------------------------------------------------------------------------
async function decideCli(args, env) {
  const { stdout } = await run(process.execPath, [DECIDE, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  return stdout;
}

function askEngineCalls(engine) {
  return new Promise((resolve) => {
    const id = Math.random();
    const onMessage = (m) => {
      if (m?.type === 'calls' && m.id === id) {
        engine.off('message', onMessage);
        resolve(m.calls);
      }
    };
    engine.on('message', onMessage);
    engine.send({ type: 'calls', id });
  });
}

async function once(origin, pathname, headers, body) {
  const res = await request(origin + pathname, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const fmtInt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

function table(rows, header) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// ---- main -------------------------------------------------------------------------------
async function main() {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` (or `npm run bench`)');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-bench-'));
  const db = path.join(tmp, 'bench.db');
  const serviceEnv = { DECIDE_FREE_PER_IP: '0', DECIDE_FREE_PER_SITE: '0' };

  // A key on a pass with plenty of credits: every decision is served.
  const created = JSON.parse(await decideCli(['key', 'create', '--json', '--db', db], serviceEnv));
  await decideCli(['pass', 'fund', '--pass', created.passId, '--credits', String(CONFIG.credits), '--db', db], serviceEnv);

  const engineSrv = await startServer('engine', process.execPath, [path.join(BENCH, 'engine-server.js')], { ipc: true, cwd: ROOT });
  const echoSrv = await startServer('echo', process.execPath, [path.join(BENCH, 'echo-server.js')], { ipc: true, cwd: ROOT });
  const profDir = path.join(BENCH, 'profiles');
  if (CONFIG.cpuProf) mkdirSync(profDir, { recursive: true });
  const port = CONFIG.decideStdout === 'null' ? await freePort() : 0;
  const decideSrv = await startServer(
    'decide serve',
    process.execPath,
    [...(CONFIG.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), DECIDE, 'serve', '--port', String(port), '--db', db],
    {
      cwd: ROOT,
      stdoutToNull: CONFIG.decideStdout === 'null' ? { url: `http://127.0.0.1:${port}`, readyOn: /^decide: engine /m } : undefined,
      env: {
        ...serviceEnv,
        DECIDE_ENGINE: 'systemone',
        DECIDE_SYSTEMONE_URL: engineSrv.url,
        DECIDE_MODEL: 'bench-instant',
      },
    },
  );

  const jsonHeaders = { 'content-type': 'application/json' };
  const decideHeaders = { ...jsonHeaders, authorization: `Bearer ${created.key}` };

  // Sanity: each endpoint answers as expected before any load.
  const echoCheck = await once(echoSrv.url, '/echo', jsonHeaders, STANDARD);
  if (echoCheck.status !== 200 || echoCheck.text !== JSON.stringify(STANDARD)) throw new Error(`echo sanity check failed: ${echoCheck.status} ${echoCheck.text}`);
  const stdCheck = await once(decideSrv.url, '/v1/decisions', decideHeaders, STANDARD);
  if (stdCheck.status !== 200) throw new Error(`standard decision sanity check failed: ${stdCheck.status} ${stdCheck.text}`);
  const stdBody = JSON.parse(stdCheck.text);
  if (!stdBody.result?.selected) throw new Error(`standard decision has no result: ${stdCheck.text}`);
  if (CONFIG.stress) {
    const before = await askEngineCalls(engineSrv.child);
    const stressCheck = await once(decideSrv.url, '/v1/decisions', decideHeaders, STRESS);
    const calls = (await askEngineCalls(engineSrv.child)) - before;
    if (stressCheck.status !== 200) throw new Error(`stress decision sanity check failed: ${stressCheck.status} ${stressCheck.text}`);
    const checks = JSON.parse(stressCheck.text).stress?.checks?.length;
    if (calls !== 5 || checks !== 5) throw new Error(`stress decision made ${calls} engine calls with ${checks} checks; expected 5 and 5`);
  }

  const pids = { decide: decideSrv.child.pid, engine: engineSrv.child.pid, echo: echoSrv.child.pid };
  const cpuSnapshot = () => ({
    machine: machineCpuMs(),
    decide: cpuMsOf(pids.decide),
    engine: cpuMsOf(pids.engine),
    echo: cpuMsOf(pids.echo),
    bench: (() => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    })(),
  });

  const TARGETS = {
    echo: { origin: echoSrv.url, path: '/echo', headers: jsonHeaders, body: STANDARD, cpu: 'echo' },
    standard: { origin: decideSrv.url, path: '/v1/decisions', headers: decideHeaders, body: STANDARD, cpu: 'decide' },
    stress: { origin: decideSrv.url, path: '/v1/decisions', headers: decideHeaders, body: STRESS, cpu: 'decide' },
  };

  /**
   * One concurrency level: the targets are driven in alternating slices (echo, standard,
   * [stress], echo, standard, …) so a burst of background load hits them alike; each
   * row pools its slices' latencies, windows and CPU time.
   */
  async function group(concurrency, names) {
    const acc = Object.fromEntries(
      names.map((target) => [
        target,
        {
          driver: createTarget({ ...TARGETS[target], body: JSON.stringify(TARGETS[target].body), concurrency }),
          latencies: [],
          statuses: {},
          failures: {},
          windowMs: 0,
          cpuMs: {},
          machine: { busy: 0, ours: 0, steal: 0 },
          engineCalls: 0,
          completed: 0,
        },
      ]),
    );
    try {
      for (let i = 0; i < CONFIG.slices; i++) {
        for (const target of names) {
          const a = acc[target];
          let cpuStart = null;
          const callsBefore = await askEngineCalls(engineSrv.child);
          const completedBefore = a.driver.completed();
          const r = await a.driver.slice({
            warmupMs: i === 0 ? CONFIG.warmupMs : CONFIG.sliceWarmupMs,
            durationMs: CONFIG.durationMs / CONFIG.slices,
            onMeasureStart: () => (cpuStart = cpuSnapshot()),
          });
          const cpuEnd = cpuSnapshot();
          // Every request of the slice has ended, so calls ÷ requests is exact (warm-up included).
          a.engineCalls += (await askEngineCalls(engineSrv.child)) - callsBefore;
          a.completed += a.driver.completed() - completedBefore;
          for (const l of r.latencies) a.latencies.push(l);
          for (const [k, v] of Object.entries(r.statuses)) a.statuses[k] = (a.statuses[k] ?? 0) + v;
          Object.assign(a.failures, r.failures);
          a.windowMs += r.windowMs;
          let ours = 0;
          for (const k of ['decide', 'engine', 'echo', 'bench']) {
            const d = cpuStart?.[k] == null || cpuEnd[k] == null ? null : cpuEnd[k] - cpuStart[k];
            a.cpuMs[k] = d == null || a.cpuMs[k] === null ? null : (a.cpuMs[k] ?? 0) + d;
            ours += d ?? 0;
          }
          if (cpuStart?.machine && cpuEnd.machine) {
            a.machine.busy += cpuEnd.machine.busy - cpuStart.machine.busy;
            a.machine.steal += cpuEnd.machine.steal - cpuStart.machine.steal;
            a.machine.ours += ours;
          } else a.machine = null;
        }
      }
    } finally {
      await Promise.all(names.map((target) => acc[target].driver.close()));
    }

    return names.map((target) => {
      const a = acc[target];
      const summary = summarise(a.latencies, a.windowMs);
      const requests = Object.values(a.statuses).reduce((x, y) => x + y, 0);
      const perRequest = (v) => (v == null ? null : v / Math.max(1, summary.ok));
      const row = {
        name: `${target} c=${concurrency}`,
        target,
        concurrency,
        requests,
        ok: summary.ok,
        errors: requests - summary.ok,
        statuses: a.statuses,
        failures: a.failures,
        windowMs: a.windowMs,
        perSecond: summary.perSecond,
        latencyMs: summary.latencyMs,
        // CPU milliseconds per successful request, per process, over the measured windows.
        cpuMsPerRequest: Object.fromEntries(Object.entries(a.cpuMs).map(([k, v]) => [k, perRequest(v)])),
        cpuCoresBusy: Object.fromEntries(Object.entries(a.cpuMs).map(([k, v]) => [k, v == null ? null : v / a.windowMs])),
        // Machine-wide cores busy, the part that was not our four processes (other tenants,
        // kernel threads), and hypervisor steal: a noisy neighbour shows up here.
        machineCores: a.machine && {
          busy: a.machine.busy / a.windowMs,
          notOurs: Math.max(0, (a.machine.busy - a.machine.ours) / a.windowMs),
          steal: a.machine.steal / a.windowMs,
        },
        engineCallsPerRequest: target === 'echo' ? null : a.engineCalls / Math.max(1, a.completed),
        sample: a.driver.sample()?.slice(0, 2000) ?? null,
      };
      process.stderr.write(
        `bench: ${row.name.padEnd(16)} ${fmtInt(row.perSecond).padStart(7)}/s  p50 ${fmt(row.latencyMs.p50)} ms  p99 ${fmt(row.latencyMs.p99)} ms` +
          (row.errors ? `  ERRORS ${JSON.stringify(row.statuses)} ${JSON.stringify(row.failures)}` : '') + '\n',
      );
      return row;
    });
  }

  const rows = [];
  const stressAt = CONFIG.concurrency.includes(CONFIG.stressConcurrency) ? CONFIG.stressConcurrency : CONFIG.concurrency[0];
  for (const c of CONFIG.concurrency) {
    const names = ['echo', 'standard', ...(CONFIG.stress && c === stressAt ? ['stress'] : [])];
    rows.push(...(await group(c, names)));
  }

  // ---- ratios against the echo baseline measured at the same concurrency ---------------
  const echoAt = (c) => rows.find((r) => r.target === 'echo' && r.concurrency === c);
  const comparisons = rows
    .filter((r) => r.target !== 'echo')
    .map((r) => {
      const e = echoAt(r.concurrency);
      return {
        name: r.name,
        concurrency: r.concurrency,
        decisionsPerSecond: r.perSecond,
        echoPerSecond: e.perSecond,
        throughputRatio: r.perSecond / e.perSecond,
        p50: { decisionMs: r.latencyMs.p50, echoMs: e.latencyMs.p50, overheadMs: r.latencyMs.p50 - e.latencyMs.p50, ratio: r.latencyMs.p50 / e.latencyMs.p50 },
        p99: { decisionMs: r.latencyMs.p99, echoMs: e.latencyMs.p99, overheadMs: r.latencyMs.p99 - e.latencyMs.p99, ratio: r.latencyMs.p99 / e.latencyMs.p99 },
        serverCpuMsPerRequest: {
          decide: r.cpuMsPerRequest.decide,
          echo: e.cpuMsPerRequest.echo,
          overheadMs: r.cpuMsPerRequest.decide - e.cpuMsPerRequest.echo,
          ratio: r.cpuMsPerRequest.decide / e.cpuMsPerRequest.echo,
        },
        engineCallsPerRequest: r.engineCallsPerRequest,
      };
    });

  // ---- report ---------------------------------------------------------------------------
  const cpus = os.cpus();
  const machine = {
    cores: cpus.length,
    availableParallelism: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadavgAtEnd: os.loadavg(),
  };
  const out = [];
  out.push(`decide bench — ${machine.cores} cores (${machine.cpuModel}), node ${machine.node}; engine answers instantly on loopback`);
  out.push(
    `per row: warm-up ${CONFIG.warmupMs} ms, then ${CONFIG.slices} slices of ${CONFIG.durationMs / CONFIG.slices} ms measured (+${CONFIG.sliceWarmupMs} ms warm-up each), ` +
      `alternating with the other rows of the same concurrency; closed loop, one connection per in-flight request; decide stdout: ${CONFIG.decideStdout}`,
  );
  out.push('cpu columns: CPU ms per successful request of the server under test / the engine / this load generator; cores: CPU time ÷ wall time');
  out.push('');
  out.push(
    table(
      rows.map((r) => [
        r.name,
        fmtInt(r.ok),
        r.errors,
        fmtInt(r.perSecond),
        fmt(r.latencyMs.p50),
        fmt(r.latencyMs.p90),
        fmt(r.latencyMs.p99),
        fmt(r.latencyMs.max, 1),
        fmt(r.cpuMsPerRequest[r.target === 'echo' ? 'echo' : 'decide'], 3),
        r.target === 'echo' ? '-' : fmt(r.cpuMsPerRequest.engine, 3),
        fmt(r.cpuMsPerRequest.bench, 3),
        r.engineCallsPerRequest == null ? '-' : fmt(r.engineCallsPerRequest, 2),
        fmt(r.cpuCoresBusy[r.target === 'echo' ? 'echo' : 'decide'], 2),
        r.machineCores ? `${fmt(r.machineCores.busy, 2)}/${fmt(r.machineCores.notOurs, 2)}/${fmt(r.machineCores.steal, 2)}` : 'n/a',
      ]),
      ['row', 'ok', 'err', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'srv cpu ms/req', 'engine cpu', 'loadgen cpu', 'engine calls/req', 'srv cores', 'machine busy/other/steal'],
    ),
  );
  out.push('');
  out.push('Against the echo baseline at the same concurrency (overhead = decision − echo latency):');
  out.push(
    table(
      comparisons.map((c) => [
        c.name,
        fmtInt(c.decisionsPerSecond),
        fmtInt(c.echoPerSecond),
        fmt(c.throughputRatio, 3),
        `${fmt(c.p50.overheadMs)} (${fmt(c.p50.ratio)}x)`,
        `${fmt(c.p99.overheadMs)} (${fmt(c.p99.ratio)}x)`,
        `${fmt(c.serverCpuMsPerRequest.overheadMs, 3)} (${fmt(c.serverCpuMsPerRequest.ratio, 1)}x)`,
      ]),
      ['row', 'decisions/s', 'echo req/s', 'ratio', 'p50 overhead ms (x echo)', 'p99 overhead ms (x echo)', 'server cpu overhead ms/req (x echo)'],
    ),
  );
  out.push('');
  out.push(
    'Closed loop: once the server is saturated, latency ≈ in-flight ÷ throughput (queueing), so the c=1 row is the bare path ' +
      'latency, and the cpu columns count work per request rather than waiting.',
  );
  const busiest = Math.max(0, ...rows.map((r) => r.machineCores?.notOurs ?? 0));
  if (busiest > 0.2) {
    out.push(
      `WARNING: other processes kept up to ${fmt(busiest, 2)} of ${machine.cores} cores busy during the measured windows ` +
        '(column "other"): absolute figures are depressed; the ratios, measured in alternating slices, less so.',
    );
  }
  const failed = rows.filter((r) => r.errors > 0);
  for (const r of failed) out.push(`ERRORS in ${r.name}: ${JSON.stringify(r.statuses)} ${JSON.stringify(r.failures)}`);
  process.stdout.write(out.join('\n') + '\n');

  writeFileSync(
    CONFIG.out,
    JSON.stringify({ at: new Date().toISOString(), machine, config: CONFIG, requestBodies: { standard: STANDARD, stress: STRESS }, rows, comparisons }, null, 2) + '\n',
  );
  process.stderr.write(`bench: wrote ${path.relative(ROOT, CONFIG.out)}\n`);

  // Graceful stop, so a --cpu-prof profile gets written.
  await stop(decideSrv.child, 10_000);
  await stopAll(3_000);
  if (CONFIG.cpuProf) process.stderr.write(`bench: CPU profile of decide serve in ${path.relative(ROOT, profDir)}/ (summarise with node bench/profile-top.js)\n`);
  return failed.length === 0;
}

main().then(
  (clean) => process.exit(clean ? 0 : 1),
  async (error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    await stopAll(2_000);
    process.exit(1);
  },
);
