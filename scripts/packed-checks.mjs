#!/usr/bin/env node
// What packing a stress decision's without-fact checks into one call would change, on a
// real OpenAI-compatible server: llama.cpp's llama-server (scripts/llama-server.mjs) on a
// real model (npm run models:real), complete items of one half of the shipped set that
// hold a decisive fact, read two ways under `--debias none` (the remote engines' default):
//
//   apart   decide's stress decision as it runs: one call per fact left out, each
//           context without its fact (the contract's without-fact check)
//   packed  those calls replaced by one: the facts numbered once, the question, and
//           "answer once for each fact, as if that fact were not given", the model
//           writing one line "<number>: <label>" per fact (a grammar holds it to that
//           form) and each line's label distribution read off the token's top
//           logprobs, as decide reads a single answer
//
// Per item: how many of its checks' top answers change when packed, the total variation
// between the two readings of each check, whether the pivot changes, and which check
// shifts most (is it the decisive fact's?); calls and prompt tokens (the server's own
// count) of a standard decision, a stress decision, and a stress decision packed.
//
//   node scripts/packed-checks.mjs MODEL.gguf [--half even] [--limit 40] [--primed] [--json out.json]
//   node scripts/packed-checks.mjs --from out.json
//
// --primed opens the assistant turn, with "Answer:" in ChatML (SmolLM2) or "The answer
// is" in Gemma's turns (a model file named gemma): bench/lib/llama-server.js says why.
// For development: needs the built llama-server and `npm run build`.
// docs/eval.md ("Packing a stress decision's checks into one call") quotes it.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ANSWER_PRIMED_CHATML, ANSWER_PRIMED_GEMMA, findLlamaServer, startLlamaServer } from '../bench/lib/llama-server.js';
import { DecisionRequest } from '../dist/contract/decision.js';
import { ordersFor } from '../dist/decision/debias.js';
import { splitFacts } from '../dist/decision/facts.js';
import { shownOrder } from '../dist/decision/orders.js';
import { totalVariation, weigh } from '../dist/decision/outcome.js';
import { mainQuestion, readMain } from '../dist/decision/questions.js';
import { runDecision } from '../dist/decision/run.js';
import { stressOf } from '../dist/decision/stress.js';
import { interval, differences } from '../dist/eval/bootstrap.js';
import { splitHalves } from '../dist/eval/halves.js';
import { readSet, requestOf } from '../dist/eval/item.js';
import { decisiveIndex } from './lib/decisive-fact.mjs';
import { labelDistribution } from '../dist/engine/labels.js';
import { createOpenAIEngine } from '../dist/engine/openai.js';
import { answerFromLabels, renderQuestion, SYSTEM } from '../dist/engine/prompt.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    half: { type: 'string', default: 'even' },
    limit: { type: 'string', default: '40' },
    primed: { type: 'boolean', default: false },
    json: { type: 'string' },
    from: { type: 'string' },
  },
});

async function measure() {
  const model = positionals[0];
  if (!model) throw new Error('usage: packed-checks.mjs MODEL.gguf [--half even] [--limit 40] [--primed] [--json out.json]');
  const { binary, skipped } = findLlamaServer();
  if (skipped) throw new Error(skipped);
  const set = readSet(new URL('../eval/decisions.jsonl', import.meta.url).pathname);
  const halfOf = splitHalves(set);
  const candidates = set.filter(
    // readSet has checked that a decisive fact is one of the context's facts.
    (item) => halfOf.get(item.id) === values.half && item.decisiveFact !== undefined && splitFacts(item.context).length > 1,
  );
  // Every k-th, so a limit spreads over the modes and families the set lists in turn.
  const step = Math.max(1, candidates.length / Number(values.limit));
  const items = Array.from({ length: Math.min(candidates.length, Number(values.limit)) }, (_, i) => candidates[Math.floor(i * step)]);

  const primed = /gemma/i.test(model) ? ANSWER_PRIMED_GEMMA : ANSWER_PRIMED_CHATML;
  const server = await startLlamaServer({ binary, model, slots: 1, ...(values.primed ? { chatTemplate: primed } : {}) });
  const engine = createOpenAIEngine({ baseUrl: `${server.url}/v1`, model: 'model', timeoutMs: 300_000 });
  const records = [];
  const unread = [];
  try {
    for (const [n, item] of items.entries()) {
      process.stderr.write(`\r${n + 1}/${items.length} ${item.id}          `);
      try {
        records.push(await measureItem(item, engine, `${server.url}/v1/chat/completions`));
      } catch (error) {
        // decide's own reading failed (too little mass on the labels): no pair to compare.
        if (error.kind !== 'bad_response') throw error;
        unread.push({ id: item.id, mode: item.mode, why: error.message });
      }
    }
    process.stderr.write('\n');
  } finally {
    await engine.close();
    await server.stop();
  }
  return { model, half: values.half, records, unread };
}

async function measureItem(item, engine, url) {
  const signal = AbortSignal.timeout(600_000);
  const standardRequest = DecisionRequest.parse({ ...requestOf(item), depth: 'standard' });
  const request = DecisionRequest.parse({ ...requestOf(item), depth: 'stress' });
  const standard = await counted(engine, (counting) => runDecision(standardRequest, counting, { signal, debias: 'none' }));
  const stress = await counted(engine, (counting) => runDecision(request, counting, { signal, debias: 'none' }), request.context);
  const outcome = stress.outcome;

  const facts = splitFacts(request.context);
  const base = weigh(readingOf(request, outcome.distribution));
  const apartChecks = outcome.stress.checks.filter((c) => c.kind === 'without-fact');
  const packed = await askPacked(request, facts, url);
  const record = {
    id: item.id,
    mode: request.mode,
    facts: facts.length,
    decisive: decisiveIndex(item),
    apart: { shifts: apartChecks.map((c) => c.shift), tops: apartChecks.map((c) => topOf(weigh(resultReading(request, c.result)))) },
    pivotApart: outcome.stress.pivot?.factIndex ?? null,
    tokens: { standard: standard.tokens, stress: stress.tokens, packed: stress.tokens - stress.checkTokens + packed.inputTokens },
    calls: { standard: standard.calls, stress: stress.calls, packed: stress.calls - stress.checkCalls + 1 },
    checkTV: [],
    wrote: packed.wrote,
    labels: packed.labels,
  };
  if (packed.failure) return { ...record, failure: packed.failure };
  const weighed = packed.readings.map((reading) => weigh(reading));
  // Only the without-fact checks are compared, so the base stands in for the reversed reading.
  const packedStress = stressOf(
    base,
    base,
    weighed.map((w, i) => ({ fact: facts[i], weighed: w })),
  );
  const packedChecks = packedStress.checks.filter((c) => c.kind === 'without-fact');
  record.packed = { shifts: packedChecks.map((c) => c.shift), tops: weighed.map(topOf) };
  record.pivotPacked = packedStress.pivot?.factIndex ?? null;
  record.checkTV = weighed.map((w, i) => totalVariation(w, weigh(resultReading(request, apartChecks[i].result))));
  return record;
}

/**
 * A decision made through `engine`, with its calls (one per question: the openai engine
 * asks each question of a state in a call of its own, and no choice here has more than
 * 20 options) and prompt tokens (the server's own count), those of states other than
 * `context` (the without-fact checks) also apart.
 */
async function counted(engine, decide, context) {
  const figures = { calls: 0, tokens: 0, checkCalls: 0, checkTokens: 0 };
  const counting = {
    ...engine,
    ask: async (state, questions, signal, call) => {
      const reply = await engine.ask(state, questions, signal, call);
      const calls = Object.keys(questions).length;
      figures.calls += calls;
      figures.tokens += reply.inputTokens;
      if (context !== undefined && state !== context) {
        figures.checkCalls += calls;
        figures.checkTokens += reply.inputTokens;
      }
      return reply;
    },
  };
  const outcome = await decide(counting);
  return { ...figures, outcome };
}

/**
 * One call for every check: the main question as decide renders it (options sorted, as
 * shown), the facts numbered once, and a reply of one "<number>: <label>" line per fact.
 */
async function askPacked(request, facts, url) {
  const [order] = ordersFor(shownOrder(mainQuestion(request)), 'none');
  const question = mainQuestion(request, order);
  const rendered = renderQuestion('', question);
  const numbered = facts.map((fact, i) => `${i + 1}. ${fact.text.trim()}`).join('\n');
  const options = rendered.user.split('\n\n').find((part) => /^(Options|Levels|Answers):\n/.test(part));
  const labels = rendered.labels;
  const user = [
    `Facts:\n${numbered}`,
    `Question:\n${question.instructions}`,
    options,
    `Answer the question once for each fact, each time as if that fact were not given, judging from the other facts alone. ` +
      `Reply with one line per fact, in order, each "<number of the fact>: <label>", the label one of ${labels.join(', ')}. Write nothing else.`,
  ].join('\n\n');
  // The space goes with the label, as the model writes " A" after a colon: a lone space
  // token before it would leave the model where it never is.
  const label = labels.map((l) => JSON.stringify(` ${l}`)).join(' | ');
  const grammar = `root ::= ${facts.map((_, i) => `"\\n${i + 1}:" label`).join(' ')}\nlabel ::= ${label}\n`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'model',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: user },
      ],
      max_tokens: 8 * facts.length + 8,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
      grammar,
    }),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(`packed call: ${response.status} ${JSON.stringify(data)}`);
  const inputTokens = data.usage.prompt_tokens;
  // A label is the token after a colon; the line numbers come after a line break.
  const answers = [];
  let text = '';
  for (const entry of data.choices[0].logprobs.content) {
    if (/:\s*$/.test(text) && labels.some((l) => l.toLowerCase() === entry.token.trim().toLowerCase())) answers.push(entry.top_logprobs);
    text += entry.token;
  }
  // What the record keeps of the call, however it is read.
  const reply = { inputTokens, wrote: text, labels };
  if (answers.length !== facts.length)
    return { ...reply, failure: `read ${answers.length} labels of ${facts.length} from ${JSON.stringify(text)}` };
  try {
    const readings = answers.map((top) => {
      const p = labelDistribution(top, labels, 'packed');
      return readMain(request, 'main', answerFromLabels(question, labels, p), order);
    });
    return { ...reply, readings };
  } catch (error) {
    return { ...reply, failure: `${error.message}; the model wrote ${JSON.stringify(text)}` };
  }
}

/** A reading in request order from an unrounded distribution as runDecision reports it. */
function readingOf(request, distribution) {
  if (request.mode === 'noul') return { mode: 'noul', yes: distribution[0] };
  return { mode: request.mode, labels: request.mode === 'choice' ? request.options : request.levels, p: distribution };
}

/** A reported result read back as a reading (its values are already rounded, so weigh keeps them). */
function resultReading(request, result) {
  if (request.mode === 'noul') return { mode: 'noul', yes: result.yesProbability };
  const labels = request.mode === 'choice' ? request.options : request.levels;
  return { mode: request.mode, labels, p: labels.map((l) => result.probabilities[l]) };
}

/**
 * Whether a packed reply gives line i the i-th label as shown, round and round ("1: A,
 * 2: B, 3: C, …"): a reply that follows the line numbers, not the facts.
 */
function countsOff({ wrote, labels, facts }) {
  const written = [...wrote.matchAll(/\n\d+: (\S+)/g)].map((m) => m[1]);
  return written.length === facts && written.every((label, i) => label === labels[i % labels.length]);
}

const topOf = (weighed) => weighed.top;
const argmax = (xs) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);
const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
const medianOf = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2 : null;
};

function report({ model, half, records, unread }) {
  const f = (x, d = 3) => (x === null ? '—' : x.toFixed(d));
  const iv = (i, d = 3) => (i ? `[${f(i.low, d)}, ${f(i.high, d)}]` : '');
  const read = records.filter((r) => !r.failure);
  console.log(`${model}, ${half} half: ${records.length} complete items with a decisive fact, ${read.length} packed readings usable`);
  for (const u of unread) console.log(`  no stress decision (${u.mode}), ${u.id}: ${u.why}`);
  for (const r of records.filter((x) => x.failure)) console.log(`  unusable packed reading, ${r.id}: ${r.failure}`);
  const changed = (sample) => {
    const checks = sample.flatMap((r) => r.apart.tops.map((t, i) => (t === r.packed.tops[i] ? 0 : 1)));
    return mean(checks);
  };
  const pivotChanged = (sample) => mean(sample.map((r) => (r.pivotApart === r.pivotPacked ? 0 : 1)));
  const meanTV = (sample) => mean(sample.flatMap((r) => r.checkTV));
  const unusable = (sample) => mean(sample.map((r) => (r.failure ? 1 : 0)));
  const counting = (sample) => mean(sample.map((r) => (countsOff(r) ? 1 : 0)));
  console.log(
    `packed replies that only count through the labels (line i: the i-th label shown): ${f(counting(records))} ${iv(interval(records, counting))}`,
  );
  console.log(`unusable packed readings: ${f(unusable(records))} ${iv(interval(records, unusable))}`);
  console.log(`checks whose top answer changes when packed: ${f(changed(read))} ${iv(interval(read, changed))}`);
  console.log(
    `total variation between a check read apart and packed: mean ${f(meanTV(read))} ${iv(interval(read, meanTV))}, median ${f(medianOf(read.flatMap((r) => r.checkTV)))}`,
  );
  console.log(`pivot (or none) changes when packed: ${f(pivotChanged(read))} ${iv(interval(read, pivotChanged))}`);
  const unit = (shifts, pivot, decisive) => ({
    found: argmax(shifts) === decisive ? 1 : 0,
    pivot: pivot === decisive ? 1 : 0,
    named: pivot === null ? 0 : 1,
  });
  const pairs = read.map((r) => ({
    a: unit(r.apart.shifts, r.pivotApart, r.decisive),
    b: unit(r.packed.shifts, r.pivotPacked, r.decisive),
  }));
  const stats = (sample) => ({
    'largest shift is the decisive fact': mean(sample.map((u) => u.found)),
    'pivot is the decisive fact': mean(sample.map((u) => u.pivot)),
    'a pivot named': mean(sample.map((u) => u.named)),
  });
  console.log('apart (A) against packed (B), paired:');
  for (const [name, d] of Object.entries(differences(pairs, stats)))
    console.log(`  ${name.padEnd(36)} A ${f(d.a)}  B ${f(d.b)}  B−A ${f(d.difference)} ${iv(d.interval)}${d.differs ? '  differs' : ''}`);
  console.log(`chance of naming the decisive fact by the largest shift: ${f(mean(records.map((r) => 1 / r.facts)))}`);
  const sum = (key, side) => records.reduce((s, r) => s + r[key][side], 0);
  for (const key of ['calls', 'tokens']) {
    const [standard, stress, packed] = ['standard', 'stress', 'packed'].map((side) => sum(key, side));
    console.log(
      `${key} per decision: standard ${f(standard / records.length, 1)}, stress ${f(stress / records.length, 1)} (${f(stress / standard, 2)}×), ` +
        `stress packed ${f(packed / records.length, 1)} (${f(packed / standard, 2)}×)`,
    );
  }
}

const run = values.from ? JSON.parse(fs.readFileSync(values.from, 'utf8')) : await measure();
if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(run, null, 2)}\n`);
report(run);
