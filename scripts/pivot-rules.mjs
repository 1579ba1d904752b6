#!/usr/bin/env node
// When a stress decision should name a fact as the one its answer rests on: rules for
// the pivot, each judged against the rule before 2026-12-02 (any flip, or a shift of
// 0.1) on the same readings of a stress-depth `decide eval --json` report, paired, with
// seeded bootstrap intervals of rule − before (docs/eval.md, "When a fact decides").
//
//   node scripts/pivot-rules.mjs REPORT.json [--half even|odd]
//
// Per complete item whose decisive fact is one of the facts a stress decision splits:
// - named: the rule names a pivot;
// - wrong: it names another fact than the decisive one (what a reader would check in vain);
// - right: it names the decisive fact;
// - net: right − wrong.
// The records keep each check's shift and flip, the reversed check's shift and the base
// reading, so every rule is applied to the very readings the engine made. Run `npm run
// build` first.
import fs from 'node:fs';
import { differences } from '../dist/eval/bootstrap.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--half');
const half = args.includes('--half') ? args[args.indexOf('--half') + 1] : null;
if (!file) {
  console.error('usage: node scripts/pivot-rules.mjs REPORT.json [--half even|odd]');
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const records = report.records.filter(
  (r) =>
    r.sufficient && r.given?.shifts && r.given.reversedShift !== undefined && r.decisiveFactIndex != null && (!half || r.half === half),
);

/** Whether the base answer led clearly, on the signal's lines (yes/no outside 0.4–0.6, a lead of 0.15). */
const clear = (r) => {
  const p = [...r.given.p].sort((a, b) => b - a);
  return r.mode === 'noul' ? Math.abs(r.given.p[0] - 0.5) >= 0.1 : p[0] - p[1] >= 0.15;
};
/** The largest shift among the checks `decides` lets through, or null. */
const largest = (r, decides) => {
  let best = null;
  r.given.shifts.forEach((shift, i) => {
    if (decides(shift, i) && (best === null || shift > r.given.shifts[best])) best = i;
  });
  return best;
};
const othersMax = (r, i) => Math.max(0, ...r.given.shifts.filter((_, j) => j !== i));
const counts = (r, shift, i) => shift >= 0.1 || (r.given.flips[i] && clear(r));

const RULES = {
  before: (r) => largest(r, (shift, i) => r.given.flips[i] || shift >= 0.1),
  'beyond the reversed shift': (r) => largest(r, (shift, i) => shift > r.given.reversedShift && counts(r, shift, i)),
  ...Object.fromEntries(
    [1, 1.5, 2].map((ratio) => [
      `${ratio} x max(reversed, other facts)`,
      (r) => largest(r, (shift, i) => shift > ratio * Math.max(r.given.reversedShift, othersMax(r, i)) && counts(r, shift, i)),
    ]),
  ),
  'as served (the report)': (r) => r.given.pivot,
};

const unit = (r, pivot) => ({
  named: pivot === null ? 0 : 1,
  wrong: pivot !== null && pivot !== r.decisiveFactIndex ? 1 : 0,
  right: pivot === r.decisiveFactIndex ? 1 : 0,
});
const mean = (sample, key) => (sample.length ? sample.reduce((s, u) => s + u[key], 0) / sample.length : null);
const stats = (sample) => {
  const [named, wrong, right] = ['named', 'wrong', 'right'].map((key) => mean(sample, key));
  return { named, wrong, right, net: right === null ? null : right - wrong };
};

console.log(
  `${report.engine.model}, ${records.length} complete items with a decisive fact among their facts${half ? `, ${half} half` : ''}`,
);
const f = (x) => x.toFixed(3);
for (const [name, rule] of Object.entries(RULES)) {
  if (name === 'before') continue;
  const pairs = records.map((r) => ({ a: unit(r, RULES.before(r)), b: unit(r, rule(r)) }));
  const line = Object.entries(differences(pairs, stats))
    .map(([k, d]) => `${k} ${f(d.a)}→${f(d.b)} ${f(d.difference)} [${f(d.interval.low)}, ${f(d.interval.high)}]${d.differs ? '*' : ''}`)
    .join('  ');
  console.log(`${name.padEnd(30)} ${line}`);
}
