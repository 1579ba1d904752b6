#!/usr/bin/env node
// How well two stress-depth `decide eval --json` reports of the same items find each
// item's decisive fact: paired, A (first report) against B (second), with seeded
// bootstrap intervals of B − A. Used to judge how a stress decision reads its
// without-fact checks (docs/eval.md, "How a stress check is read").
//
//   node scripts/stress-checks.mjs A.json B.json [set.jsonl]
//
// Per complete item with a decisive fact, on the reading as written:
// - found: the check with the largest shift is the decisive fact's;
// - pivot: that check also reaches the pivot's 0.1 (or flips: not kept in records);
// - margin: the decisive fact's shift minus the mean shift of the other facts.
// Run `npm run build` first.
import fs from 'node:fs';
import { differences } from '../dist/eval/bootstrap.js';
import { decisiveIndex } from './lib/decisive-fact.mjs';

const [fileA, fileB, setFile = new URL('../eval/decisions.jsonl', import.meta.url)] = process.argv.slice(2);
if (!fileB) {
  console.error('usage: node scripts/stress-checks.mjs A.json B.json [set.jsonl]');
  process.exit(2);
}
const items = new Map(
  fs
    .readFileSync(setFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((item) => [item.id, item]),
);
const records = (file) => new Map(JSON.parse(fs.readFileSync(file, 'utf8')).records.map((r) => [r.id, r]));
const [a, b] = [records(fileA), records(fileB)];

const unitOf = (record, index) => {
  const shifts = record?.given?.shifts;
  if (!shifts || shifts.length < 2) return null;
  let top = 0;
  for (let i = 1; i < shifts.length; i++) if (shifts[i] > shifts[top]) top = i;
  const others = shifts.filter((_, i) => i !== index);
  return {
    found: top === index ? 1 : 0,
    pivot: top === index && shifts[index] >= 0.1 ? 1 : 0,
    margin: shifts[index] - others.reduce((x, y) => x + y, 0) / others.length,
    shift: shifts[index],
  };
};

const pairs = [];
for (const [id, ra] of a) {
  const item = items.get(id);
  if (!item?.decisiveFact || !ra.sufficient) continue;
  const index = decisiveIndex(item);
  if (index < 0) continue;
  const [ua, ub] = [unitOf(ra, index), unitOf(b.get(id), index)];
  if (ua && ub) pairs.push({ a: ua, b: ub });
}
const mean = (sample, key) => (sample.length ? sample.reduce((s, u) => s + u[key], 0) / sample.length : null);
const stats = (sample) => ({
  found: mean(sample, 'found'),
  pivot: mean(sample, 'pivot'),
  margin: mean(sample, 'margin'),
  decisiveShift: mean(sample, 'shift'),
});
console.log(`${pairs.length} complete items with a decisive fact found among their facts, read in both reports`);
const rows = Object.entries(differences(pairs, stats));
for (const [name, d] of rows) {
  const f = (x) => x.toFixed(3);
  console.log(
    `${name.padEnd(14)} A ${f(d.a)}  B ${f(d.b)}  B−A ${f(d.difference)} [${f(d.interval.low)}, ${f(d.interval.high)}]${d.differs ? '  differs' : ''}`,
  );
}
