// The bench's settings, from the environment (see bench/README.md for each).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureModel } from '../gguf/generate.js';

export const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(BENCH, '..');

/**
 * The tiny model: BENCH_TINY_MODEL, else the one the tests run on, gguf/generate.js's
 * `test` size (written into bench/.cache/models/ the first time, in well under a second).
 */
export function tinyModel() {
  return process.env.BENCH_TINY_MODEL || ensureModel('test').path;
}

function number(name, fallback, { integer = true, min = 0 } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n)))
    throw new Error(`${name} must be a ${integer ? 'whole ' : ''}number ≥ ${min}, not "${raw}"`);
  return n;
}

function list(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function counts(name, fallback) {
  const values = list(name, fallback.map(String)).map(Number);
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${name} must be whole numbers ≥ 1, comma-separated`);
  return values;
}

const batchDecisions = (n) => (n === 0 ? 0 : 8 * Math.max(1, Math.round(n / 8)));

export function readConfig() {
  // BENCH_SCALE multiplies every duration: 0.25 is a quick look, 2 a steadier figure.
  const scale = number('BENCH_SCALE', 1, { integer: false, min: 0.01 });
  const ms = (name, fallback) => Math.max(1, Math.round(number(name, fallback) * scale));
  return {
    scale,
    rows: list('BENCH_ROWS', null),
    // HTTP rows (1 and 3): per target and concurrency, measured in `slices` alternating slices.
    concurrency: counts('BENCH_CONCURRENCY', [1, 16]),
    stressConcurrency: number('BENCH_STRESS_CONCURRENCY', 16, { min: 1 }),
    mcpConcurrency: counts('BENCH_MCP_CONCURRENCY', [16]),
    warmupMs: ms('BENCH_WARMUP_MS', 1_500),
    durationMs: ms('BENCH_DURATION_MS', 6_000),
    slices: Math.max(1, number('BENCH_SLICES', 3)),
    sliceWarmupMs: ms('BENCH_SLICE_WARMUP_MS', 300),
    // Row 2: the slow engine and the measured time per depth.
    engineDelayMs: number('BENCH_ENGINE_DELAY_MS', 200),
    stressDurationMs: ms('BENCH_STRESS_DURATION_MS', 5_000),
    // Row 4: per store and concurrency.
    ledgerMs: ms('BENCH_LEDGER_MS', 3_000),
    pgConcurrency: counts('BENCH_PG_CONCURRENCY', [1, 8]),
    pgUrl: process.env.BENCH_PG_URL ?? process.env.DECIDE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    // Row 7: the local engine at realistic sizes (models from bench/gguf/generate.js).
    localSizes: list('BENCH_LOCAL_SIZES', ['0.5b', '1.5b']),
    localDecisions: Math.max(2, Math.round(number('BENCH_LOCAL_DECISIONS', 4, { min: 1 }) * scale)),
    // 0 leaves the c=8 turns out; otherwise whole rounds of 8.
    localBatchDecisions: batchDecisions(number('BENCH_LOCAL_BATCH_DECISIONS', 16) * scale),
    localTurnMs: ms('BENCH_LOCAL_TURN_MS', 60_000),
    localBusy: number('BENCH_LOCAL_BUSY', 1),
    localPin: process.env.BENCH_LOCAL_PIN === '1',
    // Row 8: the memory soak on the tiny model.
    soakDecisions: Math.max(2_000, Math.round(number('BENCH_SOAK_DECISIONS', 10_000, { min: 1 }) * scale)),
    soakConcurrency: number('BENCH_SOAK_CONCURRENCY', 8, { min: 1 }),
    // Every `decide serve` of the run.
    cpuProf: process.env.BENCH_CPU_PROF === '1',
    decideStdout: process.env.BENCH_DECIDE_STDOUT === 'null' ? 'null' : 'pipe',
    out: path.resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results.json'),
  };
}
