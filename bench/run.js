#!/usr/bin/env node
// decide bench: `npm run bench` (builds first) or `node bench/run.js`. Method, settings
// and how to read the table: bench/README.md.
//
// The table is built from the row modules in ROWS, run one after the other, each
// starting and stopping its own servers. A row module that is missing, fails, or
// reports { skipped } gets a "skipped: reason" line; the run goes on.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAllNow, stopAll } from './children.js';
import { readConfig, ROOT } from './lib/config.js';
import { fmt, table, verdict } from './lib/report.js';

/**
 * The rows, in table order: bench/rows/<name>.js, each `export default { id, title, run(ctx) }`.
 * `run` returns { lines: [ratioLine | overheadLine …], details?: string, data? } or { skipped: reason }.
 */
const ROWS = [
  'http', // 1: decisions/s vs a bare Hono echo; p50/p99 service overhead
  'http-postgres', // 1b: decide serve on PostgreSQL vs on SQLite: server CPU per decision
  'stress', // 2: 12-fact stress vs standard wall time, 200 ms engine
  'mcp', // 3: weigh_decision through /mcp vs /v1
  'ledger-sqlite', // 4: SQLite store charges/s vs raw better-sqlite3 inserts
  'ledger-postgres', // 4: PostgreSQL store vs raw pg inserts
  'local-engine', // 5: the local engine on a tiny model — its row module is written with the engine
  'local-prefix', // 5b: the local engine's prefix reuse: 4-fact stress vs standard, tokens evaluated and wall time at c=1
  'local-threads', // 5c: the local engine's decisions/s with 1 and 2 threads, c=1 and c=8, idle and beside two busy loops
  'local-raw', // 5d: the local engine vs raw node-llama-cpp evaluating the same tokens, standard and stress, c=1
  'ledger-lock', // 6: routes that need no write, while another process holds the SQLite file
  'cli-start', // 7: decide --help, usage --help and ask to its first request vs node -e 0
  'local-sizes', // 8: the local engine on generated 0.5B and 1.5B models, threads 1 vs 2, idle and beside busy loops
  'local-soak', // 9: RSS of a local-engine server over 10,000 decisions on the tiny model
  'slow-provider', // 10: a 5 s provider: waves of 30 on an idle server all admitted; a cold burst of 900 gets 429, not 504
  'llama-server', // 11: the openai engine on a real llama-server: a stress decision's prompt tokens served from its prefix cache
];

// The children get exactly the decide settings the rows give them, not whatever the caller's shell holds.
for (const name of Object.keys(process.env)) if (/^(DECIDE_|OPENAI_)/.test(name)) delete process.env[name];

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

const progress = (message) => process.stderr.write(`bench: ${message}\n`);

async function loadRow(name) {
  const file = path.join(ROOT, 'bench', 'rows', `${name}.js`);
  if (!existsSync(file)) return { missing: `bench/rows/${name}.js does not exist yet` };
  return { row: (await import(new URL(`./rows/${name}.js`, import.meta.url).href)).default };
}

async function main() {
  const config = readConfig();
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` (or `npm run bench`)');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-bench-'));
  const names = config.rows ?? ROWS;
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const warnings = [];
  const background = new Map(); // row label → the most cores other processes kept busy in one of its windows
  const ctx = {
    config,
    tmp,
    progress,
    /** Non-2xx answers or transport errors during a measured window are reported, not hidden; so is background load. */
    checkErrors(label, result) {
      if (result.errors > 0)
        warnings.push(
          `ERRORS in ${label}: ${JSON.stringify(result.statuses)} ${JSON.stringify(result.failures)} ${result.firstErrorBody ?? ''}`,
        );
      ctx.noteMachine(label, result.machineCores);
    },
    /** The cores others kept busy in a measured window of `label` ("row N …"); the most per row is printed. */
    noteMachine(label, cores) {
      const row = label.split(' ').slice(0, 2).join(' ');
      background.set(row, Math.max(background.get(row) ?? 0, cores?.notOurs ?? 0));
    },
  };

  const sections = [];
  for (const name of names) {
    const t = Date.now();
    let title = name;
    try {
      const { row, missing } = await loadRow(name);
      if (missing) {
        sections.push({ id: name, title, skipped: missing });
        continue;
      }
      title = row.title ?? name;
      progress(`${title}…`);
      const out = await row.run(ctx);
      sections.push({ id: name, title, ...out, seconds: (Date.now() - t) / 1000 });
    } catch (error) {
      progress(`${title} failed: ${error.stack ?? error}`);
      sections.push({ id: name, title, skipped: `failed: ${String(error.message ?? error).split('\n')[0]}` });
    }
  }

  // ---- report ---------------------------------------------------------------------------
  const cpus = os.cpus();
  const machine = {
    cores: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadavgAtEnd: os.loadavg(),
  };
  const out = [];
  out.push(`decide bench — ${machine.cores} cores (${machine.cpuModel}), node ${machine.node}, load generator autocannon (closed loop)`);
  out.push(
    `HTTP targets: warm-up ${config.warmupMs} ms, then ${config.slices} alternating slices (+${config.sliceWarmupMs} ms warm-up each), ` +
      `${config.durationMs} ms measured per target; decide stdout: ${config.decideStdout}; took ${Math.round((Date.now() - started) / 1000)} s`,
  );
  // How loaded the machine was: every figure is depressed by it, the ratios less so.
  const load = (l) => l.map((x) => fmt(x, 2)).join(' ');
  out.push(
    `machine load: load average (1, 5, 15 min) ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end; ` +
      `cores kept busy by other processes in measured windows, the most per row: ` +
      ([...background].map(([row, cores]) => `${row} ${fmt(cores, 2)}`).join(', ') || 'not measured'),
  );
  for (const s of sections) {
    if (!s.details) continue;
    out.push('', `${s.title}:`, s.details);
  }
  out.push('');
  const lines = [];
  for (const s of sections) {
    if (s.skipped) lines.push([s.title, `skipped: ${s.skipped}`, '', '', '', '', '']);
    else for (const l of s.lines) lines.push([s.title, l.measure, l.ours, l.baseline, l.result, l.goal, verdict(l.met)]);
  }
  out.push(table(lines, ['row', 'measure', 'ours', 'baseline', 'ratio / diff', 'goal', ''], { left: 2 }));
  const notes = sections.flatMap((s) => (s.lines ?? []).filter((l) => l.note).map((l) => `  ${s.title}, ${l.measure}: ${l.note}`));
  if (notes.length) out.push('', 'notes:', ...notes);
  const busy = [...background].filter(([, cores]) => cores > 0.3);
  if (busy.length) {
    warnings.push(
      `other processes kept up to ${busy.map(([row, cores]) => `${fmt(cores, 2)} (${row})`).join(', ')} of ${os.cpus().length} cores busy ` +
        'during measured windows: absolute figures are depressed; the ratios, measured in alternating slices, less so',
    );
  }
  if (warnings.length) out.push('', ...warnings.map((w) => `WARNING: ${w}`));
  process.stdout.write(out.join('\n') + '\n');

  writeFileSync(config.out, JSON.stringify({ at: new Date().toISOString(), machine, config, sections, warnings }, null, 2) + '\n');
  progress(`wrote ${path.relative(ROOT, config.out)}`);
  if (config.cpuProf) progress('CPU profiles of every decide serve in bench/profiles/ (summarise: node bench/profile-top.js [file])');
}

main().then(
  () => process.exit(0),
  async (error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    await stopAll(2_000);
    process.exit(1);
  },
);
