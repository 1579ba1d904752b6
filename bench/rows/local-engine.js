// Row 5, the local engine on the tiny model: one standard decision, and a 4-fact
// stress decision (1 base call of 3 questions + 4 without-fact calls) with its calls
// batched as sequences of one context (the service's way) against the same calls
// one by one. In process, on dist/ and node-llama-cpp, no HTTP: this row measures
// the engine, rows 1-3 the service around it. The tiny model has random weights, so
// the figures are llama.cpp's plumbing cost, not a real model's speed.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { tinyModel } from '../lib/config.js';
import { fmt, ratioLine } from '../lib/report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

export default {
  id: 'local-engine',
  title: '5 Local engine',
  async run(ctx) {
    const modelPath = process.env.BENCH_LOCAL_MODEL ?? tinyModel();
    if (!existsSync(modelPath)) return { skipped: `no model at ${modelPath}; set BENCH_LOCAL_MODEL` };
    let createLocalEngine;
    try {
      ({ createLocalEngine } = await dist('engine/local/local.js'));
      await import('node-llama-cpp');
    } catch (error) {
      return { skipped: `node-llama-cpp is not installed (${String(error.message).split('\n')[0]})` };
    }
    const { DecisionRequest } = await dist('contract/decision.js');
    const { runDecision } = await dist('decision/run.js');
    const engine = await createLocalEngine({ modelPath });
    const runs = Number(process.env.BENCH_LOCAL_RUNS ?? 20);
    const standard = DecisionRequest.parse(STANDARD);
    const stress = DecisionRequest.parse(STRESS);
    const time = async (request, concurrency) => {
      const started = performance.now();
      await runDecision(request, engine, { signal: new AbortController().signal, concurrency });
      return performance.now() - started;
    };
    try {
      ctx.progress(`row 5: local engine on ${path.basename(modelPath)}, ${runs} runs each`);
      for (let i = 0; i < 3; i++) await time(stress, 16); // warm-up: first evaluations allocate
      const samples = { standard: [], batched: [], sequential: [] };
      // Alternating, so drift of the machine hits all three alike.
      for (let i = 0; i < runs; i++) {
        samples.standard.push(await time(standard, 16));
        samples.batched.push(await time(stress, 16));
        samples.sequential.push(await time(stress, 1));
      }
      const p50 = Object.fromEntries(Object.entries(samples).map(([name, ms]) => [name, median(ms)]));
      const details = Object.entries(samples)
        .map(
          ([name, ms]) => `  ${name.padEnd(10)} p50 ${fmt(median(ms))} ms  min ${fmt(Math.min(...ms))} ms  max ${fmt(Math.max(...ms))} ms`,
        )
        .join('\n');
      return {
        lines: [
          ratioLine('4-fact stress vs standard (batched)', {
            ours: p50.batched,
            baseline: p50.standard,
            oursText: `${fmt(p50.batched)} ms`,
            baselineText: `${fmt(p50.standard)} ms`,
          }),
          ratioLine('4-fact stress: batched vs one by one', {
            ours: p50.batched,
            baseline: p50.sequential,
            oursText: `${fmt(p50.batched)} ms`,
            baselineText: `${fmt(p50.sequential)} ms`,
            note: 'below 1x, batching the checks as sequences of one context pays; on a random tiny model the compute is too small for it to',
          }),
        ],
        details: `model ${path.basename(modelPath)}, p50 of ${runs} in-process decisions:\n${details}`,
        data: { samples },
      };
    } finally {
      await engine.close();
    }
  },
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
