// Row 11, a real OpenAI-compatible server's prefix cache: decide's openai engine against
// llama.cpp's llama-server (built by scripts/llama-server.mjs) on SmolLM2-135M-Instruct
// (npm run models:real), the bench's 4-fact decision at standard and stress depth under
// each debiasing mode. Per decision: the engine calls, the prompt tokens the server
// counted (usage.prompt_tokens) and those it took from its cache
// (usage.prompt_tokens_details.cached_tokens), read by a pass-through recorder between
// the engine and the server. Every decision runs on a freshly started server, so what is
// cached is a prefix an earlier call of the same decision sent, nothing older. One slot
// (-np 1): the calls run one after the other, each finding the previous ones cached. The
// server opens the assistant turn with "Answer:" (lib/llama-server.js says why).
// Goal: at least 70 % of a stress decision's prompt tokens served from the cache.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { ANSWER_PRIMED_CHATML, findLlamaServer, startLlamaServer, startUsageRecorder } from '../lib/llama-server.js';
import { median } from '../lib/local.js';
import { fmt, fmtInt, ratioLine } from '../lib/report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);
const BODIES = { standard: STANDARD, stress: STRESS };
const MODES = ['none', 'reverse', 'cyclic'];
const MODEL = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
  'decide',
  'real-models',
  'SmolLM2-135M-Instruct.Q4_1.gguf',
);

export default {
  id: 'llama-server',
  title: '11 llama-server prefix cache',
  async run(ctx) {
    const { binary, skipped } = findLlamaServer();
    if (skipped) return { skipped };
    if (!existsSync(MODEL)) return { skipped: `no model at ${MODEL}: run npm run models:real` };
    const { createOpenAIEngine } = await dist('engine/openai.js');
    const { DecisionRequest } = await dist('contract/decision.js');
    const { runDecision } = await dist('decision/run.js');
    const runs = Number(process.env.BENCH_LLAMA_RUNS ?? 1);

    /** One decision on a fresh server with `slots` slots: what the server counted, and the answer. */
    const once = async (depth, debias, slots = 1) => {
      const server = await startLlamaServer({ binary, model: MODEL, slots, chatTemplate: ANSWER_PRIMED_CHATML });
      const recorder = await startUsageRecorder(server.url);
      const engine = createOpenAIEngine({ baseUrl: `${recorder.url}/v1`, model: 'smollm2', timeoutMs: 300_000 });
      try {
        const outcome = await runDecision(DecisionRequest.parse(BODIES[depth]), engine, { signal: new AbortController().signal, debias });
        return { ...recorder.since(0), result: outcome.result, sufficiency: outcome.contextSufficiency };
      } finally {
        await engine.close();
        await recorder.close();
        await server.stop();
      }
    };

    ctx.progress(
      `row 11: ${path.basename(MODEL)} on llama-server, ${runs} decision(s) per depth and debiasing mode, each on a fresh server`,
    );
    const samples = {};
    for (const debias of MODES)
      for (const depth of ['standard', 'stress']) {
        const key = `${depth} ${debias}`;
        samples[key] = [];
        for (let i = 0; i < runs; i++) samples[key].push(await once(depth, debias));
      }
    // Beside them: four slots, the calls of a decision then running side by side.
    const fourSlots = await once('stress', 'none', 4);

    const p50 = (key, field) => median(samples[key].map((s) => s[field]));
    const lines = MODES.map((debias) => {
      const key = `stress ${debias}`;
      return ratioLine(`4-fact stress, debias ${debias}: prompt tokens served from the server's cache`, {
        ours: p50(key, 'cached'),
        baseline: p50(key, 'prompt'),
        oursText: fmtInt(p50(key, 'cached')),
        baselineText: fmtInt(p50(key, 'prompt')),
        min: 0.7,
        digits: 2,
        note: `${p50(key, 'calls')} engine calls; least share of ${runs}: ${fmt(Math.min(...samples[key].map((s) => s.share)), 2)}`,
      });
    });
    const detail = Object.entries(samples).map(([key, s]) => {
      const [depth, debias] = key.split(' ');
      return (
        `  ${depth.padEnd(8)} debias ${debias.padEnd(7)} ${String(p50(key, 'calls')).padStart(2)} calls, ` +
        `${fmtInt(p50(key, 'prompt'))} prompt tokens, ${fmtInt(p50(key, 'cached'))} cached (${fmt(100 * median(s.map((x) => x.share)), 1)} %)`
      );
    });
    const perCall = samples['stress none'][0].each.map((c) => `${c.cached}/${c.prompt}`).join(', ');
    return {
      lines,
      details:
        `${path.basename(MODEL)}, llama-server ${path.basename(path.dirname(binary))}, one slot, 2 threads, p50 of ${runs} decisions each on a fresh server:\n` +
        `${detail.join('\n')}\n` +
        `  stress, debias none, cached/prompt tokens per call in the order answered: ${perCall}\n` +
        `  stress, debias none, four slots (-np 4): ${fmtInt(fourSlots.cached)} of ${fmtInt(fourSlots.prompt)} cached (${fmt(100 * fourSlots.share, 1)} %)`,
      data: { samples, fourSlots },
    };
  },
};
