#!/usr/bin/env node
// How each candidate rule for context sufficiency at stress depth would have ranked
// the contexts of a stress-depth `decide eval --json` report: the rules are computed
// from what the report's records keep of every stress reading (the probe's own value
// and each without-fact check's shift), so one run judges them all on the same
// readings. AUROC with its seeded bootstrap interval (items resampled), and the share
// of complete and incomplete contexts each rule would send back as `needs-context`.
//
//   node scripts/sufficiency-rules.mjs stress-even.json [more.json ...]
//
// Used to choose the rule on a set's even half (docs/eval.md, "Sufficiency at stress
// depth"); run `npm run build` first.
import fs from 'node:fs';
import { intervals } from '../dist/eval/bootstrap.js';
import { auroc } from '../dist/eval/metrics.js';
import { logit, sigmoid } from './lib/log-odds.mjs';

const CAP = 0.98;
const largest = (shifts) => [...shifts].sort((a, b) => b - a);

/** Each rule maps (probe, shifts) to a sufficiency; the first is what stress depth did before. */
const RULES = {
  // Up only: the largest shift raises the probe's log-odds by logit((1 + g) / 2).
  'up only (the old rule)': (s, shifts) => sigmoid(logit(s) + logit((1 + Math.min(CAP, largest(shifts)[0] ?? 0)) / 2)),
  // The probe alone: stress depth leaves it as standard depth reads it.
  'probe alone': (s) => s,
  // Both ways: an answer resting on one fact raises it (the largest shift beyond the
  // next), one that moves whichever fact is cut lowers it (the next-largest shift).
  'concentration, both ways': (s, shifts) => {
    const [g1 = 0, g2 = 0] = largest(shifts);
    return sigmoid(logit(s) + logit((1 + Math.min(CAP, g1 - g2)) / 2) - logit((1 + Math.min(CAP, g2)) / 2));
  },
  // Down only: movement whichever fact is cut (the next-largest shift) lowers it.
  'down only': (s, shifts) => sigmoid(logit(s) - logit((1 + Math.min(CAP, largest(shifts)[1] ?? 0)) / 2)),
};

/** Every stress reading of a report as a unit: [complete?, probe, shifts], grouped by item so a resample keeps an item's readings together. */
function unitsOf(report) {
  return report.records.map((r) => {
    const readings = [];
    const add = (reading, complete) => {
      // Reports before stress depth stopped weighing the checks kept the probe's own value apart.
      if (reading?.shifts) readings.push({ complete, s: reading.selfAssessed ?? reading.contextSufficiency, shifts: reading.shifts });
    };
    add(r.given, r.sufficient);
    if (!r.withoutFactIsItem) add(r.withoutFact, false);
    return readings;
  });
}

function figures(units, rule) {
  const flat = units.flat();
  const complete = flat.filter((u) => u.complete).map((u) => rule(u.s, u.shifts));
  const incomplete = flat.filter((u) => !u.complete).map((u) => rule(u.s, u.shifts));
  const flagged = (list) => (list.length ? list.filter((v) => v < 0.5).length / list.length : null);
  return { auroc: auroc(complete, incomplete), completeFlagged: flagged(complete), incompleteFlagged: flagged(incomplete) };
}

const pct = (v) => (v === null ? '—' : `${(100 * v).toFixed(1)} %`);
for (const file of process.argv.slice(2)) {
  const units = unitsOf(JSON.parse(fs.readFileSync(file, 'utf8')));
  const n = units.flat().length;
  console.log(`${file}: ${n} stress readings (${units.flat().filter((u) => u.complete).length} complete)`);
  for (const [name, rule] of Object.entries(RULES)) {
    const own = figures(units, rule);
    // Paired with the probe alone on the same resamples: what the rule adds beyond noise.
    const ci = intervals(units, (sample) => {
      const mine = figures(sample, rule).auroc;
      const probe = figures(sample, RULES['probe alone']).auroc;
      return { auroc: mine, gain: mine === null || probe === null ? null : mine - probe };
    });
    const range = (i) => (i ? ` [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]` : '');
    console.log(
      `  ${name.padEnd(26)} AUROC ${own.auroc?.toFixed(3) ?? '—'}${range(ci.auroc)}  vs probe${range(ci.gain)}  needs-context: complete ${pct(own.completeFlagged)}, incomplete ${pct(own.incompleteFlagged)}`,
    );
  }
}
