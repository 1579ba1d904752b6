#!/usr/bin/env node
// How the sufficiency probe's two readings (Yes shown first, No shown first) could be
// combined into `contextSufficiency`, judged on a real model: every distinct request of
// the shipped set (each item as written, each without its decisive fact, once, as
// `decide calibrate` reads the probe) is asked the probe in both orders, as one call
// of the local engine, and each combination is scored on both halves:
//
//   mean        (y₁ + y₂) / 2, what `reverse` and `cyclic` served before
//   yes-first   y₁ alone, what `none` reads
//   logit-mean  σ((logit y₁ + logit y₂) / 2): a pull toward the first place is the same
//               log-odds added to one reading and taken from the other, so it cancels
//               exactly, where the mean of two readings pinned at 0.99 and 0.01 is 0.5
//               whatever the context says
//   max         the surer yes of the two: \`needs-context\` only when both orders say no,
//               so two readings that follow the place they are shown at send nothing back
//
// and each again with a scaling fitted on the even half (temperature and a yes offset,
// as `decide calibrate` fits the probe). AUROC (complete contexts against incomplete)
// with its seeded bootstrap interval and the paired difference from `mean`, log loss,
// and the share of complete and incomplete contexts the signal would send back as
// `needs-context` (below 0.5).
//
//   node scripts/sufficiency-probes.mjs MODEL.gguf [--threads N] [--json out.json]
//   node scripts/sufficiency-probes.mjs --from out.json     score a saved run again
//
// For development: it needs node-llama-cpp and `npm run build` (docs/eval.md,
// "The probe under debiasing", has the figures).

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { sufficiencyQuestion } from '../dist/decision/questions.js';
import { readYes } from '../dist/decision/orders.js';
import { intervals } from '../dist/eval/bootstrap.js';
import { fitScaling, meanLogLoss } from '../dist/eval/fit-scaling.js';
import { splitHalves } from '../dist/eval/halves.js';
import { contextWithoutDecisiveFact, isSufficient, readSet, requestOf } from '../dist/eval/item.js';
import { auroc } from '../dist/eval/metrics.js';
import { rescaled } from '../dist/decision/scaling.js';
import { logit, sigmoid } from './lib/log-odds.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { threads: { type: 'string', default: '2' }, json: { type: 'string' }, from: { type: 'string' } },
});

const COMBINATIONS = {
  mean: (y1, y2) => (y1 + y2) / 2,
  'yes-first': (y1) => y1,
  'logit-mean': (y1, y2) => sigmoid((logit(y1) + logit(y2)) / 2),
  max: (y1, y2) => Math.max(y1, y2),
};

const run = values.from ? JSON.parse(fs.readFileSync(values.from, 'utf8')) : await read(positionals[0]);
if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(run, null, 1)}\n`);
report(run);

/** Every distinct probe request with its half and label, read in both orders. */
async function read(modelPath) {
  if (!modelPath) throw new Error('usage: sufficiency-probes.mjs MODEL.gguf [--threads N] [--json out.json]');
  const { createLocalEngine } = await import('../dist/engine/local/local.js');
  const set = readSet(new URL('../eval/decisions.jsonl', import.meta.url).pathname);
  const halfOf = splitHalves(set);
  const requests = new Map();
  // As `decide calibrate` reads the probe: the first claim on a request wins, an item as written before any variant.
  for (const item of set) {
    const request = requestOf(item);
    const key = JSON.stringify(request);
    if (!requests.has(key)) requests.set(key, { request, half: halfOf.get(item.id), complete: isSufficient(item), id: item.id });
  }
  for (const item of set) {
    const context = contextWithoutDecisiveFact(item);
    if (context === null) continue;
    const request = { ...requestOf(item), context };
    const key = JSON.stringify(request);
    if (!requests.has(key)) requests.set(key, { request, half: halfOf.get(item.id), complete: false, id: `${item.id} without its fact` });
  }
  const engine = await createLocalEngine({ modelPath, threads: Number(values.threads) });
  const started = Date.now();
  const all = [...requests.values()];
  const readings = [];
  for (let i = 0; i < all.length; i += 8) {
    const batch = all.slice(i, i + 8);
    const calls = batch.map(({ request }) => ({
      state: request.context,
      questions: { yesFirst: sufficiencyQuestion(request), noFirst: sufficiencyQuestion(request, true) },
    }));
    const replies = await engine.askAll(calls, AbortSignal.timeout(600_000));
    replies.forEach((reply, j) => {
      const { id, half, complete } = batch[j];
      readings.push({ id, half, complete, y1: readYes('yesFirst', reply.answers.yesFirst), y2: readYes('noFirst', reply.answers.noFirst) });
    });
    process.stderr.write(`\r${readings.length}/${all.length}`);
  }
  process.stderr.write('\n');
  await engine.close();
  return { model: engine.model, seconds: Math.round((Date.now() - started) / 1000), readings };
}

function report({ model, seconds, readings }) {
  console.log(`${model}: ${readings.length} probe requests read in both orders${seconds ? ` in ${seconds} s` : ''}`);
  const even = readings.filter((r) => r.half === 'even');
  const odd = readings.filter((r) => r.half === 'odd');
  // A combination's reading of each request as the probe's noul answer: yes (slot 0) is right for a complete context.
  const scored = (list, combine) =>
    list.map((r) => {
      const yes = combine(r.y1, r.y2);
      return { p: [yes, 1 - yes], answer: r.complete ? 0 : 1 };
    });
  const logLoss = (list, combine) => meanLogLoss('noul', scored(list, combine), { temperature: 1 });
  const place = (list) => ({
    yesFirst: average(list.map((r) => r.y1)),
    noFirst: average(list.map((r) => r.y2)),
  });
  const both = place(readings);
  console.log(`  P(yes) read with Yes first ${both.yesFirst.toFixed(3)}, with No first ${both.noFirst.toFixed(3)}`);
  for (const [half, list] of [
    ['even', even],
    ['odd', odd],
  ]) {
    const complete = list.filter((r) => r.complete).length;
    console.log(`  ${half} half: ${list.length} requests, ${complete} complete`);
    for (const [name, combine] of Object.entries(COMBINATIONS)) {
      // Fitted on the even half only, whichever half is reported.
      const scaling = fitScaling('noul', scored(even, combine), { offsets: true });
      for (const [label, fn] of [
        [name, combine],
        [`${name}, fitted`, (y1, y2) => rescaled('noul', [combine(y1, y2), 1 - combine(y1, y2)], scaling)[0]],
      ]) {
        const figures = (sample) => {
          const s = sample.map((r) => fn(r.y1, r.y2));
          const base = sample.map((r) => COMBINATIONS.mean(r.y1, r.y2));
          const a = auroc(
            s.filter((_, i) => sample[i].complete),
            s.filter((_, i) => !sample[i].complete),
          );
          const b = auroc(
            base.filter((_, i) => sample[i].complete),
            base.filter((_, i) => !sample[i].complete),
          );
          return {
            auroc: a,
            gain: a === null || b === null ? null : a - b,
            loss: logLoss(sample, fn) - logLoss(sample, COMBINATIONS.mean),
          };
        };
        const own = figures(list);
        const ci = intervals(list, figures);
        const loss = logLoss(list, fn);
        const flagged = (want) => {
          const mine = list.filter((r) => r.complete === want);
          return mine.filter((r) => fn(r.y1, r.y2) < 0.5).length / mine.length;
        };
        const range = (i) => (i ? ` [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]` : '');
        const fit = label.endsWith('fitted') ? ` (T ${scaling.temperature}, yes ${scaling.offsets?.[0] ?? 0})` : '';
        console.log(
          `    ${(label + fit).padEnd(40)} AUROC ${own.auroc.toFixed(3)}${range(ci.auroc)}  vs mean ${own.gain >= 0 ? '+' : ''}${own.gain.toFixed(3)}${range(ci.gain)}  log loss ${loss.toFixed(3)} (${own.loss >= 0 ? '+' : ''}${own.loss.toFixed(3)}${range(ci.loss)})  needs-context: complete ${pct(flagged(true))}, incomplete ${pct(flagged(false))}`,
        );
      }
    }
  }
}

function average(list) {
  return list.reduce((a, b) => a + b, 0) / list.length;
}

function pct(v) {
  return `${(100 * v).toFixed(1)} %`;
}
