#!/usr/bin/env node
// Compares ways the local engine could read an answer off a real model, on one half of
// the shipped set, item by item on the same items (docs/eval.md, "How the local engine
// reads an answer", has the figures):
//
//   letters          the engine's reading: the answers lettered A, B, … in the chat
//                    template, in the order written; P(letter) as the next token
//   letters-rev      the same averaged with the reversed order (`reverse`, the default)
//   cloze-sum        no answers shown: each answer's text scored as the model's reply,
//                    Σ ln p(token), softmax over answers (order-free: nothing is listed)
//   cloze-mean       the same, mean ln p per token (long answers not punished for length)
//   plain, plain-rev the lettered prompt without the chat template, ending "Answer:"
//   shots, shots-rev the lettered prompt after three solved examples from the even half
//   sorted, sorted-rev a choice's options lettered in one canonical order (sorted by text),
//                    whatever order the request gives; alone and averaged with its reverse
//
// For each: accuracy and log loss on complete items, the log loss at the one temperature
// that fits the half best (so a reading is not judged on its sharpness alone), how often
// the top answer moves when the decisive fact is cut out (the twin), and `pull`, how far
// the fact moves ln p of the right answer; each paired with letters-rev, with intervals.
//
//   node scripts/reading-formats.mjs MODEL.gguf [--half even|odd] [--variants cloze-sum,plain,shots]
//                                    [--limit N] [--json out.json]
//   node scripts/reading-formats.mjs --from out.json     print a saved run again
//
// For development: it needs node-llama-cpp and `npm run build`. A half takes 5–45 minutes
// on two cores (SmolLM2 letters and cloze the least, few-shot on Gemma 3 the most).

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { getLlama, LlamaText, resolveChatWrapper } from 'node-llama-cpp';
import { mainInstructions } from '../dist/decision/prompts.js';
import { interval as meanInterval } from '../dist/eval/bootstrap.js';
import { splitHalves } from '../dist/eval/halves.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    half: { type: 'string', default: 'even' },
    json: { type: 'string' },
    limit: { type: 'string' },
    variants: { type: 'string', default: 'letters,letters-rev,cloze-sum,cloze-mean' },
    from: { type: 'string' },
  },
});
const [modelPath] = positionals;
if (values.from) {
  const { report, records } = JSON.parse(fs.readFileSync(values.from, 'utf8'));
  print(reportOf(records, { model: report.model, half: report.half, seconds: report.seconds }));
  process.exit(0);
}
const set = fs
  .readFileSync(new URL('../eval/decisions.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const halves = splitHalves(set);
const byId = new Map(set.map((item) => [item.id, item]));
/**
 * Few-shot examples: one complete item per mode from the even half, the first in id
 * order whose right answer is not first (so the examples do not teach "A"). Their
 * families are left out of the scored items of every variant, so the pairing holds.
 */
const SHOTS = ['choice', 'noul', 'score'].map(
  (mode) =>
    set
      .filter((i) => i.mode === mode && halves.get(i.id) === 'even' && i.sufficient !== false && answersOf(i).right > 0)
      .sort((a, b) => (a.id < b.id ? -1 : 1))[0],
);
const shotGroups = new Set(SHOTS.map((i) => i.family ?? i.id));
let complete = set.filter(
  (item) => halves.get(item.id) === values.half && item.sufficient !== false && !shotGroups.has(item.family ?? item.id),
);
if (values.limit) complete = complete.slice(0, Number(values.limit));

const llama = await getLlama({ build: 'never', gpu: false, maxThreads: 2, logLevel: 'error' });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ threads: 2, sequences: 3, contextSize: { max: 4096 } });
/** One sequence per form, so each keeps its own prefix (the examples' ~900 tokens for 'shots'). */
const sequences = { chat: context.getSequence(), plain: context.getSequence(), shots: context.getSequence() };
const USER = '\u0000u\u0000';
const ANSWER = '\u0000a\u0000';
const rendered = resolveChatWrapper(model).generateContextState({
  chatHistory: [
    { type: 'user', text: USER },
    { type: 'model', response: [ANSWER] },
  ],
}).contextText.values;
const [head, tail] = splitAround(rendered, USER, ANSWER);
const tok = (text) => model.tokenize(text, false, 'trimLeadingSpace');
const LETTERS = 'ABCDEFGHIJKLMNOPQRST';
const letterTokens = [...LETTERS].map((l) => tok(l).find((t) => model.detokenize([t]).trim() === l));
/** " A", " B", …: how a letter follows "Answer:" in plain text. */
const spacedLetters = [...LETTERS].map((l) => tok(` ${l}`).find((t) => model.detokenize([t]).trim() === l));
const bos = model.tokens.bos === null ? [] : [model.tokens.bos];
const LETTER_REPLY = '\n\nReply with the letter of the best answer to the question:\n';

function splitAround(values, user, answer) {
  const at = values.findIndex((v) => typeof v === 'string' && v.includes(user));
  const [before, after] = values[at].split(user);
  const rest = [after, ...values.slice(at + 1)];
  const at2 = rest.findIndex((v) => typeof v === 'string' && v.includes(answer));
  const [before2] = rest[at2].split(answer);
  const t = (vals) => LlamaText(vals).tokenize(model.tokenizer, 'trimLeadingSpace');
  return [t([...values.slice(0, at), before]), t([...rest.slice(0, at2), before2])];
}

/**
 * Brings the sequence to hold `tokens[0..from)`, then evaluates the rest; at each index
 * of `at`, the raw logits of the tokens `want[i]` and ln Σ exp(logit) over the vocabulary.
 */
async function evaluate(tokens, at, want, sequence = sequences.chat) {
  const from = Math.min(...at);
  await sequence.adaptStateToTokens(tokens.slice(0, from), false);
  const start = sequence.nextTokenIndex;
  const input = tokens
    .slice(start, Math.max(...at) + 1)
    .map((t, i) =>
      at.includes(start + i)
        ? [t, { generateNext: { logits: { filter: { tokens: want[at.indexOf(start + i)], includeTop: 1 } }, totalLogitWeight: true } }]
        : t,
    );
  const results = await sequence.controlledEvaluate(input);
  return at.map((index) => {
    const next = results[index - start].next;
    const max = Math.max(...next.logits.values());
    return { logits: next.logits, logTotal: max + Math.log(next.totalLogitWeight) };
  });
}

function softmax(xs) {
  const m = Math.max(...xs);
  const w = xs.map((x) => Math.exp(x - m));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

function answersOf(item) {
  if (item.mode === 'choice') return { texts: item.options, right: item.options.indexOf(item.answer) };
  if (item.mode === 'score') return { texts: item.levels, right: item.levels.indexOf(item.answer) };
  return { texts: ['Yes', 'No'], right: item.answer ? 0 : 1 };
}

function promptOf(item, context, reply) {
  const instruction = mainInstructions({ mode: item.mode, question: item.question, options: item.options, levels: item.levels });
  return [...head, ...tok(`Question: ${instruction}\n\nText:\n`), ...tok(context), ...tok(reply)];
}

/** The user's text of a lettered reading, without the template. */
function letteredText(item, context, order) {
  const instruction = mainInstructions({ mode: item.mode, question: item.question, options: item.options, levels: item.levels });
  const { texts } = answersOf(item);
  return `Question: ${instruction}\n\nText:\n${context}${LETTER_REPLY}${order.map((k, i) => `${LETTERS[i]}. ${texts[k]}`).join('\n')}`;
}

/** The template's head with the three solved examples before the question: earlier turns of the same chat. */
function shotsHead() {
  const history = SHOTS.flatMap((shot) => [
    {
      type: 'user',
      text: letteredText(
        shot,
        shot.context,
        answersOf(shot).texts.map((_, i) => i),
      ),
    },
    { type: 'model', response: [LETTERS[answersOf(shot).right]] },
  ]);
  const values = resolveChatWrapper(model).generateContextState({
    chatHistory: [...history, { type: 'user', text: USER }, { type: 'model', response: [ANSWER] }],
  }).contextText.values;
  return splitAround(values, USER, ANSWER)[0];
}
let shotTokens = null;

/**
 * One lettered reading in `order` (order[place] = the answer shown there), back in
 * the item's order. `form`: 'chat' as the engine reads; 'plain' without the chat
 * template, ending "Answer:"; 'shots' after three solved examples in the template.
 */
async function letters(item, context, order, form = 'chat') {
  const { texts } = answersOf(item);
  let prompt;
  let wanted = letterTokens;
  if (form === 'plain') {
    prompt = [...bos, ...tok(`${letteredText(item, context, order)}\n\nAnswer:`)];
    wanted = spacedLetters;
  } else {
    prompt = promptOf(item, context, LETTER_REPLY);
    order.forEach((k, i) => prompt.push(letterTokens[i], ...tok(`. ${texts[k]}${i === order.length - 1 ? '' : '\n'}`)));
    prompt.push(...tail);
    if (form === 'shots') {
      shotTokens ??= shotsHead();
      prompt = [...shotTokens, ...prompt.slice(head.length)];
    }
  }
  const letters = wanted.slice(0, order.length);
  const [{ logits }] = await evaluate(prompt, [prompt.length - 1], [letters], sequences[form]);
  const p = softmax(letters.map((t) => logits.get(t)));
  const back = new Array(order.length);
  order.forEach((k, i) => (back[k] = p[i]));
  return back;
}

async function cloze(item, context) {
  const { texts } = answersOf(item);
  const prompt = [...promptOf(item, context, '\n\nReply with the best answer to the question.'), ...tail];
  const sums = [];
  const counts = [];
  for (const text of texts) {
    const answer = tok(text);
    const tokens = [...prompt, ...answer];
    const at = answer.map((_, i) => prompt.length - 1 + i);
    const read = await evaluate(
      tokens,
      at,
      answer.map((t) => [t]),
    );
    sums.push(answer.reduce((s, t, i) => s + read[i].logits.get(t) - read[i].logTotal, 0));
    counts.push(answer.length);
  }
  return { sum: softmax(sums), mean: softmax(sums.map((s, i) => s / counts[i])), sums, counts };
}

const VARIANTS = [...new Set(['letters', 'letters-rev', ...values.variants.split(',')])];
const averaged = (a, b) => a.map((p, i) => (p + b[i]) / 2);

async function readAll(item, context) {
  const k = answersOf(item).texts.length;
  const order = [...Array(k).keys()];
  const reversed = [...order].reverse();
  const out = {};
  out.letters = await letters(item, context, order);
  out['letters-rev'] = averaged(out.letters, await letters(item, context, reversed));
  if (VARIANTS.some((v) => v.startsWith('cloze'))) {
    const c = await cloze(item, context);
    Object.assign(out, { 'cloze-sum': c.sum, 'cloze-mean': c.mean, raw: { sums: c.sums, counts: c.counts } });
  }
  if (VARIANTS.some((v) => v.startsWith('sorted'))) {
    // One canonical order whatever the request's: a choice's options sorted by their text.
    const sorted = item.mode === 'choice' ? [...order].sort((a, b) => item.options[a].localeCompare(item.options[b])) : order;
    out.sorted = await letters(item, context, sorted);
    out['sorted-rev'] = averaged(out.sorted, await letters(item, context, [...sorted].reverse()));
  }
  for (const form of ['plain', 'shots']) {
    if (!VARIANTS.some((v) => v.startsWith(`${form}`))) continue;
    out[form] = await letters(item, context, order, form);
    out[`${form}-rev`] = averaged(out[form], await letters(item, context, reversed, form));
  }
  return out;
}

const records = [];
const started = Date.now();
for (const [n, item] of complete.entries()) {
  const twin = byId.get(`${item.id}-nofact`);
  const record = { id: item.id, mode: item.mode, right: answersOf(item).right, given: await readAll(item, item.context) };
  if (twin) record.without = await readAll(item, twin.context);
  records.push(record);
  if ((n + 1) % 20 === 0) process.stderr.write(`${n + 1}/${complete.length} ${Math.round((Date.now() - started) / 1000)} s\n`);
}

function top(p) {
  return p.indexOf(Math.max(...p));
}
function tempered(p, T) {
  return softmax(p.map((x) => Math.log(Math.max(x, 1e-12)) / T));
}
function figures(rs, v, T = 1) {
  const acc = rs.map((r) => (top(r.given[v]) === r.right ? 1 : 0));
  const ll = rs.map((r) => -Math.log(Math.max(tempered(r.given[v], T)[r.right], 1e-4)));
  const paired = rs.filter((r) => r.without);
  const moved = paired.map((r) => (top(r.given[v]) !== top(r.without[v]) ? 1 : 0));
  // How far the fact moves ln p of the right answer: 0 for a reading that moves at random.
  const ln = (p, i) => Math.log(Math.max(p[i], 1e-4));
  const pull = paired.map((r) => ln(r.given[v], r.right) - ln(r.without[v], r.right));
  return { acc, ll, moved, pull };
}
function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
function bestT(rs, v) {
  let best = [1, Infinity];
  for (let T = 0.1; T <= 20; T *= 1.05) {
    const ll = mean(figures(rs, v, T).ll);
    if (ll < best[1]) best = [T, ll];
  }
  return best;
}
/** mean(b − a) and its paired bootstrap 95 % interval, with the seeded resampling `decide eval` uses. */
function interval(a, b) {
  const d = a.map((x, i) => b[i] - x);
  const range = meanInterval(d, mean);
  return [mean(d), range.low, range.high];
}

const report = reportOf(records, { model: modelPath, half: values.half, seconds: Math.round((Date.now() - started) / 1000) });
if (values.json) fs.writeFileSync(values.json, JSON.stringify({ report, records }, null, 1));
print(report);
await context.dispose();
await model.dispose();
await llama.dispose();

function reportOf(records, meta) {
  const variants = Object.keys(records[0].given).filter((k) => k !== 'raw');
  const report = { ...meta, items: records.length, figures: {} };
  for (const mode of ['all', 'choice', 'noul', 'score']) {
    const rs = records.filter((r) => mode === 'all' || r.mode === mode);
    const chance = mean(rs.map((r) => 1 / r.given.letters.length));
    report.figures[mode] = { n: rs.length, chance: +chance.toFixed(3) };
    const base = figures(rs, 'letters-rev');
    for (const v of variants) {
      const f = figures(rs, v);
      const [T, llT] = bestT(rs, v);
      report.figures[mode][v] = {
        accuracy: +mean(f.acc).toFixed(3),
        logLoss: +mean(f.ll).toFixed(3),
        bestT: +T.toFixed(2),
        logLossAtT: +llT.toFixed(3),
        moved: +mean(f.moved).toFixed(3),
        pull: interval(
          f.pull.map(() => 0),
          f.pull,
        ).map((x) => +x.toFixed(3)),
        vsLettersRev: {
          accuracy: interval(base.acc, f.acc).map((x) => +x.toFixed(3)),
          logLoss: interval(base.ll, f.ll).map((x) => +x.toFixed(3)),
          moved: interval(base.moved, f.moved).map((x) => +x.toFixed(3)),
          pull: interval(base.pull, f.pull).map((x) => +x.toFixed(3)),
        },
      };
    }
  }
  return report;
}

function print(report) {
  console.log(`${report.model} ${report.half} half, ${report.items} complete items, ${report.seconds} s`);
  for (const [mode, f] of Object.entries(report.figures)) {
    console.log(`${mode} (n ${f.n}, chance ${f.chance})`);
    for (const v of Object.keys(f).filter((k) => typeof f[k] === 'object')) {
      const x = f[v];
      const d = x.vsLettersRev;
      const fmt = ([m, lo, hi]) => `${m >= 0 ? '+' : ''}${m} [${lo}, ${hi}]`;
      console.log(
        `  ${v.padEnd(12)} acc ${x.accuracy} (${fmt(d.accuracy)})  logloss ${x.logLoss} (${fmt(d.logLoss)})  at T=${x.bestT}: ${x.logLossAtT}  moved ${x.moved} (${fmt(d.moved)})  pull ${fmt(x.pull)} (${fmt(d.pull)})`,
      );
    }
  }
}
