// The local engine's prefix reuse, in process (no HTTP): a 4-fact stress decision (5
// calls, 12 readings with debias reverse, the local default) against a standard one
// (4 readings), in tokens the model evaluated and in wall time, alternating so drift of
// the machine hits both alike. At c=1, one decision at a time; at c=8, eight decisions
// of one kind at once (the sequences then all hold a decision each, so every branch is
// taken on its decision's own sequence), timed from the first sent to the last
// answered. Before reuse the stress decision evaluated its prompts whole: about 5x the
// standard's tokens; the goal is 2x at most at c=1, tokens and time. The prompt tokens
// (what inputTokens reports) are shown beside: what evaluating every reading whole
// would cost. Each decision asks a question of its own, so no decision finds another's
// whole prompt already evaluated (their question's first words, and the template, it
// does).
import path from 'node:path';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { localModel, median } from '../lib/local.js';
import { fmt, fmtInt, ratioLine } from '../lib/report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);
const KINDS = { standard: STANDARD, stress: STRESS };

export default {
  id: 'local-prefix',
  title: '5b Local prefix reuse',
  async run(ctx) {
    const { modelPath, skipped } = await localModel({ progress: ctx.progress });
    if (skipped) return { skipped };
    const { createLocalEngine } = await dist('engine/local/local.js');
    const { DecisionRequest } = await dist('contract/decision.js');
    const { runDecision } = await dist('decision/run.js');
    const threads = Number(process.env.BENCH_LOCAL_THREADS ?? 1);
    const engine = await createLocalEngine({ modelPath, threads });
    const runs = Number(process.env.BENCH_LOCAL_RUNS ?? 30);
    const batchRuns = Number(process.env.BENCH_LOCAL_BATCH_RUNS ?? 10);
    let run = 0;
    /** `concurrency` decisions of one kind at once: wall time, and tokens per decision. */
    const once = async (kind, concurrency) => {
      const before = engine.stats();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, () => {
          const body = { ...KINDS[kind], question: `${KINDS[kind].question} (case ${++run})` };
          return runDecision(DecisionRequest.parse(body), engine, { signal: new AbortController().signal, debias: 'reverse' });
        }),
      );
      const ms = performance.now() - started;
      const after = engine.stats();
      const per = (field) => (after[field] - before[field]) / concurrency;
      return { ms, evaluated: per('evaluatedTokens'), prompt: per('promptTokens') };
    };
    const model = path.basename(modelPath);
    try {
      ctx.progress(`row 5b: prefix reuse on ${model}, ${threads} thread(s), ${runs} runs of each kind at c=1, ${batchRuns} at c=8`);
      for (let i = 0; i < 3; i++) await once('stress', 1); // warm-up: the first evaluations allocate
      const samples = { 1: { standard: [], stress: [] }, 8: { standard: [], stress: [] } };
      for (const [concurrency, count] of [
        [1, runs],
        [8, batchRuns],
      ]) {
        for (let i = 0; i < count; i++)
          for (const kind of ['standard', 'stress']) samples[concurrency][kind].push(await once(kind, concurrency));
      }
      const p50 = (c, kind, field) => median(samples[c][kind].map((s) => s[field]));
      const lines = [1, 8].flatMap((c) => {
        if (samples[c].standard.length === 0) return [];
        const [standardMs, stressMs] = [p50(c, 'standard', 'ms'), p50(c, 'stress', 'ms')];
        const [standardTokens, stressTokens] = [p50(c, 'standard', 'evaluated'), p50(c, 'stress', 'evaluated')];
        const goal = c === 1 ? { max: 2 } : {};
        return [
          ratioLine(`4-fact stress vs standard: tokens evaluated, c=${c}`, {
            ours: stressTokens,
            baseline: standardTokens,
            oursText: fmtInt(stressTokens),
            baselineText: fmtInt(standardTokens),
            ...goal,
          }),
          ratioLine(`4-fact stress vs standard: wall time, c=${c}`, {
            ours: stressMs,
            baseline: standardMs,
            oursText: `${fmt(stressMs)} ms`,
            baselineText: `${fmt(standardMs)} ms`,
            ...goal,
            note: c === 8 ? 'eight decisions of one kind at once, from the first sent to the last answered' : undefined,
          }),
        ];
      });
      const stressPrompt = p50(1, 'stress', 'prompt');
      const stressTokens = p50(1, 'stress', 'evaluated');
      lines.push(
        ratioLine('4-fact stress: tokens evaluated vs its prompt tokens', {
          ours: stressTokens,
          baseline: stressPrompt,
          oursText: fmtInt(stressTokens),
          baselineText: fmtInt(stressPrompt),
          note: 'the prompt tokens are what evaluating every reading whole would cost (and what inputTokens reports)',
        }),
      );
      const detail = (c) =>
        Object.entries(samples[c])
          .map(
            ([kind, s]) =>
              `  c=${c} ${kind.padEnd(8)} ${fmt(median(s.map((x) => x.ms)))} ms (min ${fmt(Math.min(...s.map((x) => x.ms)))}), ` +
              `${fmt(c / (median(s.map((x) => x.ms)) / 1000), 1)} decisions/s, ` +
              `${fmtInt(median(s.map((x) => x.evaluated)))} tokens evaluated per decision of ${fmtInt(median(s.map((x) => x.prompt)))} in its prompts`,
          )
          .join('\n');
      return {
        lines,
        details:
          `model ${model}, ${threads} thread(s), debias reverse, p50 of ${runs} rounds at c=1 and ${batchRuns} at c=8, in process:\n` +
          [1, 8]
            .filter((c) => samples[c].standard.length > 0)
            .map(detail)
            .join('\n'),
        data: { model, threads, samples },
      };
    } finally {
      await engine.close();
    }
  },
};
