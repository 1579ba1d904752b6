#!/usr/bin/env node
// How much of a real model's next-token probability its answers rest on, and whether
// the answers that rest on little are worse: the figures behind the low-mass rule
// (docs/api.md, "How much an answer rests on"). Every complete item of the shipped
// set is decided as written, as the local engine serves it (debiasing `reverse`), and
// its answer's `labelMass` kept beside whether it was right and its log loss. For each
// half: the spread of labelMass, the share under each cut, and accuracy and log loss
// above and below 0.5, with the seeded bootstrap interval of their difference.
//
//   node scripts/label-mass.mjs MODEL.gguf [--threads N] [--half even|odd] [--json out.json]
//   node scripts/label-mass.mjs --from out.json     score a saved run again
//
// For development: it needs node-llama-cpp and `npm run build`.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { runDecision } from '../dist/decision/run.js';
import { splitHalves } from '../dist/eval/halves.js';
import { isSufficient, readSet, requestOf } from '../dist/eval/item.js';
import { answerIndex, distribution } from '../dist/eval/readings.js';
import { seeded } from '../dist/eval/random.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    threads: { type: 'string', default: '2' },
    half: { type: 'string' },
    json: { type: 'string' },
    from: { type: 'string' },
  },
});

const LOW = 0.5;
const CUTS = [0.1, 0.25, 0.5, 0.75, 0.9];

const run = values.from ? JSON.parse(fs.readFileSync(values.from, 'utf8')) : await read(positionals[0]);
if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(run, null, 1)}\n`);
report(run);

async function read(modelPath) {
  if (!modelPath) throw new Error('usage: label-mass.mjs MODEL.gguf [--threads N] [--json out.json]');
  const { createLocalEngine } = await import('../dist/engine/local/local.js');
  const set = readSet(new URL('../eval/decisions.jsonl', import.meta.url).pathname);
  const halfOf = splitHalves(set);
  const items = set.filter((item) => isSufficient(item) && (!values.half || halfOf.get(item.id) === values.half));
  const engine = await createLocalEngine({ modelPath, threads: Number(values.threads) });
  const started = Date.now();
  const readings = [];
  for (const item of items) {
    const decided = await runDecision(requestOf(item), engine, { signal: AbortSignal.timeout(600_000), debias: 'reverse' });
    const p = distribution(item, decided);
    const answer = answerIndex(item);
    const top = p.indexOf(Math.max(...p));
    readings.push({
      id: item.id,
      mode: item.mode,
      half: halfOf.get(item.id),
      labelMass: decided.labelMass,
      right: top === answer,
      logLoss: -Math.log(Math.max(p[answer], 1e-4)),
    });
    process.stderr.write(`\r${readings.length}/${items.length}`);
  }
  process.stderr.write('\n');
  await engine.close();
  return { model: engine.model, seconds: Math.round((Date.now() - started) / 1000), readings };
}

function report({ model, seconds, readings }) {
  console.log(`${model}: ${readings.length} complete items decided as written${seconds ? ` in ${seconds} s` : ''}`);
  for (const half of ['even', 'odd']) {
    const list = readings.filter((r) => r.half === half);
    if (list.length === 0) continue;
    const masses = list.map((r) => r.labelMass).sort((a, b) => a - b);
    const at = (q) => masses[Math.min(masses.length - 1, Math.floor(q * masses.length))];
    console.log(
      `  ${half} half, ${list.length} items: labelMass smallest ${masses[0].toFixed(3)}, tenth ${at(0.1).toFixed(3)}, median ${at(0.5).toFixed(3)}, largest ${masses.at(-1).toFixed(3)}`,
    );
    console.log(`    under ${CUTS.map((cut) => `${cut}: ${share(list.filter((r) => r.labelMass < cut).length, list.length)}`).join(', ')}`);
    for (const mode of ['choice', 'noul', 'score']) {
      const own = list.filter((r) => r.mode === mode).map((r) => r.labelMass);
      if (own.length)
        console.log(
          `    ${mode}: ${own.length} items, median ${median(own).toFixed(3)}, under ${LOW} ${share(own.filter((m) => m < LOW).length, own.length)}`,
        );
    }
    const low = list.filter((r) => r.labelMass < LOW);
    const high = list.filter((r) => r.labelMass >= LOW);
    for (const [name, figure] of [
      ['accuracy', (sample) => mean(sample.map((r) => (r.right ? 1 : 0)))],
      ['log loss', (sample) => mean(sample.map((r) => r.logLoss))],
    ]) {
      const difference = (sample) => figure(sample.filter((r) => r.labelMass >= LOW)) - figure(sample.filter((r) => r.labelMass < LOW));
      const [lowEnd, highEnd] = bootstrap(list, difference);
      console.log(
        `    ${name}: at or above ${LOW} ${fmt(figure(high))} (${high.length}), under it ${fmt(figure(low))} (${low.length}); above minus under ${fmt(difference(list))} [${fmt(lowEnd)}, ${fmt(highEnd)}]`,
      );
    }
  }
}

/** The 95 % interval of `statistic` over 1,000 seeded resamples of `list` (NaN resamples, a side left empty, dropped). */
function bootstrap(list, statistic) {
  const next = seeded(20_261_202);
  const values = [];
  for (let b = 0; b < 1000; b++) {
    const sample = list.map(() => list[Math.floor(next() * list.length)]);
    const value = statistic(sample);
    if (Number.isFinite(value)) values.push(value);
  }
  values.sort((a, b) => a - b);
  return values.length ? [values[Math.floor(0.025 * values.length)], values[Math.floor(0.975 * values.length)]] : [NaN, NaN];
}

function mean(xs) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}
function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}
function share(count, n) {
  return `${count}/${n} (${n ? ((100 * count) / n).toFixed(1) : '–'} %)`;
}
function fmt(x) {
  return Number.isFinite(x) ? x.toFixed(3) : '–';
}
