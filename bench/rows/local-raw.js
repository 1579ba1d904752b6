// The local engine against raw node-llama-cpp evaluating the same tokens, in process
// (no HTTP), at c=1: a standard decision and a 4-fact stress decision (row 5b's
// bodies, debias reverse), each through decide's `runDecision` on the local engine,
// and the same decision's readings (the exact token sequences the engine evaluates,
// built by its own prompt code from the calls `runDecision` hands it;
// lib/decision-readings.js) evaluated by node-llama-cpp on a context of the engine's
// shape (lib/raw-llama.js): (a) each whole prompt from an empty sequence, one after
// another; (b) their prefix tree, each shared prefix once, then each suffix. Every side
// reads the letters' logits after each reading and makes the same probabilities; the
// row checks that the engine was handed the calls the raw side evaluates and billed
// exactly their prompt tokens, and shows how far the probabilities differ. The three
// sides alternate, their order turning each round, so drift of the machine hits them
// alike. Each decision asks a question of its own (a case number), as in row 5b.
// Goal: decide's decisions/s ≥ 0.9× raw (a)'s.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { machineCpuMs } from '../children.js';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { decisionReadings, plain } from '../lib/decision-readings.js';
import { localModel, median } from '../lib/local.js';
import { openRaw } from '../lib/raw-llama.js';
import { fmt, fmtInt, ratioLine, table } from '../lib/report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);
const KINDS = { standard: STANDARD, stress: STRESS };
const SIDES = ['decide', 'whole', 'tree'];
const NAMES = { decide: 'decide', whole: 'raw (a) whole prompts', tree: 'raw (b) prefix tree' };
const OPTIONS = { signal: new AbortController().signal, debias: 'reverse' };

export default {
  id: 'local-raw',
  title: '5d Local vs raw llama',
  async run(ctx) {
    const { modelPath, skipped } = await localModel({ progress: ctx.progress });
    if (skipped) return { skipped };
    const { createLocalEngine } = await dist('engine/local/local.js');
    const { runDecision } = await dist('decision/run.js');
    const threads = Number(process.env.BENCH_LOCAL_THREADS ?? 1);
    const runs = Number(process.env.BENCH_LOCAL_RUNS ?? 20);
    const model = path.basename(modelPath);
    const engine = await createLocalEngine({ modelPath, threads });
    let raw = null;
    try {
      raw = await openRaw(modelPath, { threads, sequences: engine.settings.sequences, contextSize: engine.settings.contextSize });
      const decisions = await decisionReadings(raw.runtime, raw.model);

      const sides = {
        /** The decision through `runDecision` on the engine, its calls and replies kept on the way. */
        async decide(job) {
          let asked = null;
          const recording = {
            name: engine.name,
            model: engine.model,
            capacity: engine.capacity,
            askAll: async (calls, signal, call) => {
              asked = calls;
              job.replies = await engine.askAll(calls, signal, call);
              return job.replies;
            },
          };
          const before = engine.stats();
          const started = performance.now();
          await runDecision(job.request, recording, OPTIONS);
          const ms = performance.now() - started;
          const after = engine.stats();
          if (JSON.stringify(plain(asked)) !== JSON.stringify(job.calls))
            throw new Error('the engine was handed other calls than those the raw side evaluates');
          const billed = after.promptTokens - before.promptTokens;
          if (billed !== job.promptTokens)
            throw new Error(`the engine billed ${billed} prompt tokens; the readings hold ${job.promptTokens}`);
          return { ms, evaluated: after.evaluatedTokens - before.evaluatedTokens };
        },
        whole: (job) => timed(job, 'whole', () => raw.whole(job.readings)),
        tree: (job) => timed(job, 'tree', () => raw.tree(job.readings)),
      };

      let run = 0;
      const round = async (kind, order) => {
        const job = await decisions.of({ ...KINDS[kind], question: `${KINDS[kind].question} (case ${++run})` }, OPTIONS);
        const out = { readings: job.readings.length, promptTokens: job.promptTokens };
        for (const side of order) out[side] = await sides[side](job);
        for (const side of ['whole', 'tree']) out[side].diff = decisions.divergence(job, job.replies, job[side]);
        return out;
      };

      ctx.progress(`row 5d: decide vs raw node-llama-cpp on ${model}, ${threads} thread(s), ${runs} rounds of each kind at c=1`);
      for (let i = 0; i < 2; i++) await round('stress', SIDES); // warm-up: the first evaluations allocate
      const samples = { standard: [], stress: [] };
      const load = machineLoad();
      for (let i = 0; i < runs; i++) {
        const order = [...SIDES.slice(i % 3), ...SIDES.slice(0, i % 3)];
        for (const kind of Object.keys(KINDS)) samples[kind].push(await round(kind, order));
      }
      const machine = load.end();
      ctx.noteMachine('row 5d', machine);
      return {
        lines: Object.keys(KINDS).flatMap((kind) => linesOf(kind, samples[kind])),
        details: detailsOf(samples, { model, threads, runs, machine }),
        data: { model, threads, runs, machine, samples },
      };
    } finally {
      await raw?.close();
      await engine.close();
    }
  },
};

/** A raw side's evaluation of a job, timed; its probabilities kept on the job. */
async function timed(job, side, evaluate) {
  const started = performance.now();
  const { probabilities, evaluated } = await evaluate();
  const ms = performance.now() - started;
  job[side] = probabilities;
  return { ms, evaluated };
}

const p50 = (samples, side, field = 'ms') => median(samples.map((s) => s[side][field]));

function linesOf(kind, samples) {
  const ms = Object.fromEntries(SIDES.map((side) => [side, p50(samples, side)]));
  const rate = (side) => `${fmt(1000 / ms[side], 2)}/s (${fmtInt(ms[side])} ms)`;
  const line = (side, measure, goal) =>
    ratioLine(`${kind}, c=1: decisions/s, decide ÷ ${measure}`, {
      ours: 1 / ms.decide,
      baseline: 1 / ms[side],
      oursText: rate('decide'),
      baselineText: rate(side),
      ...goal,
    });
  return [line('whole', 'raw (a) whole prompts one by one', { min: 0.9 }), line('tree', 'raw (b) each shared prefix once', {})];
}

function detailsOf(samples, { model, threads, runs, machine }) {
  const rows = Object.entries(samples).flatMap(([kind, s]) =>
    SIDES.map((side) => [
      kind,
      NAMES[side],
      fmtInt(p50(s, side)),
      fmtInt(Math.min(...s.map((x) => x[side].ms))),
      fmtInt(p50(s, side, 'evaluated')),
      side === 'decide' ? '' : fmt(median(s.map((x) => x[side].ms / x.decide.ms)), 3),
      side === 'decide' ? '' : fmt(Math.max(...s.map((x) => x[side].diff)), 4),
    ]),
  );
  const counts = Object.entries(samples)
    .map(([kind, s]) => `${kind} ${s[0].readings} readings of ${fmtInt(median(s.map((x) => x.promptTokens)))} prompt tokens`)
    .join(', ');
  return (
    `model ${model}, ${threads} thread(s), debias reverse, p50 of ${runs} rounds, sides alternating (${counts}); ` +
    `other processes kept ${machine ? fmt(machine.notOurs, 2) : 'n/a'} cores busy on average:\n` +
    table(rows, ['kind', 'side', 'p50 ms', 'min ms', 'tokens evaluated', 'ms ÷ decide ms, paired p50', 'max |Δp| vs decide'], { left: 2 })
  );
}

/** The cores other processes kept busy from now to `end()` (Linux /proc), or null elsewhere. */
function machineLoad() {
  const machine = machineCpuMs();
  const cpu = process.cpuUsage();
  const started = performance.now();
  return {
    end() {
      const after = machineCpuMs();
      if (!machine || !after) return null;
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const busy = after.busy - machine.busy;
      return { busy: busy / ms, notOurs: Math.max(0, (busy - (used.user + used.system) / 1000) / ms) };
    },
  };
}
