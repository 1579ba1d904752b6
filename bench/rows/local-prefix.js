// The local engine's prefix reuse, on the tiny model, in process (no HTTP), at c=1:
// a 4-fact stress decision (5 calls, 12 readings with debias reverse, the local
// default) against a standard one (4 readings), in tokens the model evaluated and in
// wall time, alternating so drift of the machine hits both alike. Before reuse the
// stress decision evaluated its prompts whole: about 5x the standard's tokens; the
// goal is 2x at most, tokens and time. The prompt tokens (what inputTokens reports)
// are shown beside: what evaluating every reading whole would cost. Each decision
// asks a question of its own, so no decision reuses another's evaluated prompt.
import path from 'node:path';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { localModel, median } from '../lib/local.js';
import { fmt, fmtInt, ratioLine } from '../lib/report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

export default {
  id: 'local-prefix',
  title: '5b Local prefix reuse',
  async run(ctx) {
    const { modelPath, skipped } = await localModel();
    if (skipped) return { skipped };
    const { createLocalEngine } = await dist('engine/local/local.js');
    const { DecisionRequest } = await dist('contract/decision.js');
    const { runDecision } = await dist('decision/run.js');
    const threads = Number(process.env.BENCH_LOCAL_THREADS ?? 1);
    const engine = await createLocalEngine({ modelPath, threads });
    const runs = Number(process.env.BENCH_LOCAL_RUNS ?? 30);
    // Each decision asks its own question, so none finds another's prompt already
    // evaluated: the figures are what a decision costs on its own.
    let run = 0;
    const once = async (template) => {
      const body = { ...template, question: `${template.question} (case ${++run})` };
      const before = engine.stats();
      const started = performance.now();
      await runDecision(DecisionRequest.parse(body), engine, { signal: new AbortController().signal, debias: 'reverse' });
      const ms = performance.now() - started;
      const after = engine.stats();
      return { ms, evaluated: after.evaluatedTokens - before.evaluatedTokens, prompt: after.promptTokens - before.promptTokens };
    };
    try {
      ctx.progress(`row 5b: prefix reuse on ${path.basename(modelPath)}, ${threads} thread(s), ${runs} runs each`);
      for (let i = 0; i < 3; i++) await once(STRESS); // warm-up: the first evaluations allocate
      const samples = { standard: [], stress: [] };
      for (let i = 0; i < runs; i++) {
        samples.standard.push(await once(STANDARD));
        samples.stress.push(await once(STRESS));
      }
      const p50 = (kind, field) => median(samples[kind].map((s) => s[field]));
      const [standardMs, stressMs] = [p50('standard', 'ms'), p50('stress', 'ms')];
      const [standardTokens, stressTokens] = [p50('standard', 'evaluated'), p50('stress', 'evaluated')];
      const stressPrompt = p50('stress', 'prompt');
      return {
        lines: [
          ratioLine('4-fact stress vs standard: tokens evaluated', {
            ours: stressTokens,
            baseline: standardTokens,
            oursText: fmtInt(stressTokens),
            baselineText: fmtInt(standardTokens),
            max: 2,
          }),
          ratioLine('4-fact stress vs standard: wall time, c=1', {
            ours: stressMs,
            baseline: standardMs,
            oursText: `${fmt(stressMs)} ms`,
            baselineText: `${fmt(standardMs)} ms`,
            max: 2,
          }),
          ratioLine('4-fact stress: tokens evaluated vs its prompt tokens', {
            ours: stressTokens,
            baseline: stressPrompt,
            oursText: fmtInt(stressTokens),
            baselineText: fmtInt(stressPrompt),
            note: 'the prompt tokens are what evaluating every reading whole would cost (and what inputTokens reports)',
          }),
        ],
        details:
          `model ${path.basename(modelPath)}, ${threads} thread(s), debias reverse, p50 of ${runs} in-process decisions at c=1:\n` +
          Object.entries(samples)
            .map(([kind, s]) => `  ${kind.padEnd(8)} ${fmt(median(s.map((x) => x.ms)))} ms (min ${fmt(Math.min(...s.map((x) => x.ms)))}), ` +
              `${fmtInt(median(s.map((x) => x.evaluated)))} tokens evaluated of ${fmtInt(median(s.map((x) => x.prompt)))} in its prompts`)
            .join('\n'),
        data: { samples },
      };
    } finally {
      await engine.close();
    }
  },
};
