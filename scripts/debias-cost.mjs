#!/usr/bin/env node
// What each order debiasing costs in tokens on the local engine and a real model: items
// of one half of the shipped set (a `--limit` sample, stratified as `decide eval` draws
// it) decided one at a time at standard and at stress depth under `none`, `reverse` and
// `cyclic`: each mode and depth on an engine of its own, warmed up by one decision of
// the other half, then over every item in turn, so a decision follows another item's,
// as on a server of varied requests, and finds held only what an earlier item of the
// same run left (the chat template, a context two items share), never a reading of
// another mode's run. Per decision, the mean of
//
//   prompt tokens     every token of every reading's prompt: what `inputTokens` reports,
//                     and what a provider billing input tokens would bill
//   evaluated tokens  what the model evaluated, prefixes shared between readings (and
//                     with the previous decision) counted once
//
// and the mean wall time, with the stress ÷ standard ratios.
//
//   node scripts/debias-cost.mjs MODEL.gguf [--half odd] [--limit 10] [--threads 1]
//
// For development: it needs node-llama-cpp and `npm run build` (the README's debiasing
// table and docs/api.md quote it).

import { parseArgs } from 'node:util';
import { DecisionRequest } from '../dist/contract/decision.js';
import { runDecision } from '../dist/decision/run.js';
import { splitHalves } from '../dist/eval/halves.js';
import { readSet, requestOf } from '../dist/eval/item.js';
import { stratifiedSample } from '../dist/eval/sample.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    half: { type: 'string', default: 'odd' },
    limit: { type: 'string', default: '10' },
    threads: { type: 'string', default: '1' },
  },
});
if (!positionals[0]) throw new Error('usage: debias-cost.mjs MODEL.gguf [--half odd|even] [--limit N] [--threads N]');

const MODES = ['none', 'reverse', 'cyclic'];
const DEPTHS = ['standard', 'stress'];

const set = readSet(new URL('../eval/decisions.jsonl', import.meta.url).pathname);
const halfOf = splitHalves(set);
const inHalf = (half) => set.filter((item) => halfOf.get(item.id) === half);
const items = stratifiedSample(inHalf(values.half), Number(values.limit));
const warmUp = inHalf(values.half === 'odd' ? 'even' : 'odd')[0];
const { createLocalEngine } = await import('../dist/engine/local/local.js');
const start = () => createLocalEngine({ modelPath: positionals[0], threads: Number(values.threads) });
const decide = (engine, item, depth, debias) =>
  runDecision(DecisionRequest.parse({ ...requestOf(item), depth }), engine, { signal: AbortSignal.timeout(600_000), debias });

const totals = new Map();
const add = (key, figures) => {
  const sum = totals.get(key) ?? { n: 0, prompt: 0, evaluated: 0, ms: 0 };
  for (const name of ['prompt', 'evaluated', 'ms']) sum[name] += figures[name];
  sum.n += 1;
  totals.set(key, sum);
};

let done = 0;
let model;
for (const debias of MODES) {
  for (const depth of DEPTHS) {
    const engine = await start();
    model = engine.model;
    await decide(engine, warmUp, depth, debias);
    for (const item of items) {
      const before = engine.stats();
      const started = performance.now();
      await decide(engine, item, depth, debias);
      const ms = performance.now() - started;
      const after = engine.stats();
      add(`${debias} ${depth}`, {
        prompt: after.promptTokens - before.promptTokens,
        evaluated: after.evaluatedTokens - before.evaluatedTokens,
        ms,
      });
      process.stderr.write(`\r${++done}/${items.length * MODES.length * DEPTHS.length}`);
    }
    await engine.close();
  }
}
process.stderr.write('\n');

const mean = (key, name) => totals.get(key)[name] / totals.get(key).n;
console.log(
  `${model}, ${values.half} half, ${items.length} items, ${values.threads} thread(s), one decision at a time; means per decision:`,
);
console.log('| `--debias` | prompt tokens, standard / stress (×) | evaluated, standard / stress (×) | wall ms, standard / stress (×) |');
console.log('|---|---|---|---|');
for (const debias of MODES) {
  const cell = (name, digits = 0) => {
    const [a, b] = DEPTHS.map((depth) => mean(`${debias} ${depth}`, name));
    return `${a.toFixed(digits)} / ${b.toFixed(digits)} (${(b / a).toFixed(2)}×)`;
  };
  console.log(`| \`${debias}\` | ${cell('prompt')} | ${cell('evaluated')} | ${cell('ms')} |`);
}
