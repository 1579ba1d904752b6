import { scaled, type Target } from '../decision/temperature.js';
import { isSufficient } from './item.js';
import { logLoss, mean, reliability, round, type Scored } from './metrics.js';
import type { Plan } from './plan.js';
import type { Decided, Outcome } from './run.js';
import { answerIndex, distribution } from './readings.js';

/**
 * Fitting a temperature per target (each mode's answer, and the sufficiency probe)
 * on half of a labelled set, judged on the other half. The halves are fixed by the
 * items' ids, so a refit on the same set fits on the same items, and an item and its
 * twin (`<id>-nofact`) may fall in different halves but never in both.
 */

export interface Fit {
  target: Target;
  temperature: number;
  fitted: number;
  heldOut: number;
  eceBefore: number | null;
  eceAfter: number | null;
  logLossBefore: number | null;
  logLossAfter: number | null;
}

/** Which half an item falls in: FNV-1a of its id, odd or even. */
export function isHeldOut(id: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % 2 === 1;
}

const LOWEST_INVERSE = 0.02;
const HIGHEST_INVERSE = 50;

/**
 * The temperature that minimises the mean log loss of `scored`. The loss is convex in
 * the inverse temperature β = 1/T, so a golden-section search over ln β finds its
 * minimum; T is bounded to [0.02, 50], and with nothing to fit it is 1.
 */
export function fitTemperature(scored: readonly Scored[]): number {
  if (scored.length === 0) return 1;
  const loss = (lnInverse: number) => {
    const t = 1 / Math.exp(lnInverse);
    return scored.reduce((sum, s) => sum + logLoss({ p: scaled(s.p, t), answer: s.answer }), 0);
  };
  let lo = Math.log(LOWEST_INVERSE);
  let hi = Math.log(HIGHEST_INVERSE);
  const golden = (Math.sqrt(5) - 1) / 2;
  let a = hi - golden * (hi - lo);
  let b = lo + golden * (hi - lo);
  let la = loss(a);
  let lb = loss(b);
  for (let step = 0; step < 60; step++) {
    if (la <= lb) {
      hi = b;
      b = a;
      lb = la;
      a = hi - golden * (hi - lo);
      la = loss(a);
    } else {
      lo = a;
      a = b;
      la = lb;
      b = lo + golden * (hi - lo);
      lb = loss(b);
    }
  }
  return round(1 / Math.exp((lo + hi) / 2));
}

/** Fits every target that has readings, on the fitting half, and judges it on the held-out half. */
export function fitAll(plan: Plan, outcomes: ReadonlyMap<string, Outcome>): Fit[] {
  const decided = (key: string | null): Decided | null => {
    const outcome = key === null ? undefined : outcomes.get(key);
    return outcome?.ok ? outcome.decided : null;
  };
  const byTarget = new Map<Target, { fit: Scored[]; held: Scored[] }>();
  const add = (target: Target, id: string, scored: Scored) => {
    const halves = byTarget.get(target) ?? { fit: [], held: [] };
    (isHeldOut(id) ? halves.held : halves.fit).push(scored);
    byTarget.set(target, halves);
  };
  for (const { item, given, withoutFact } of plan.items) {
    const reading = decided(given);
    if (reading) {
      if (isSufficient(item)) add(item.mode, item.id, { p: distribution(item, reading), answer: answerIndex(item) });
      add('sufficiency', item.id, sufficiencyScored(reading, isSufficient(item)));
    }
    const without = decided(withoutFact);
    // A set without twins still teaches the probe what a missing fact looks like.
    if (without && withoutFact !== given) add('sufficiency', item.id, sufficiencyScored(without, false));
  }
  return (['choice', 'noul', 'score', 'sufficiency'] as const).flatMap((target) => {
    const halves = byTarget.get(target);
    if (!halves || halves.fit.length === 0) return [];
    const temperature = fitTemperature(halves.fit);
    const after = halves.held.map((s) => ({ p: scaled(s.p, temperature), answer: s.answer }));
    return [
      {
        target,
        temperature,
        fitted: halves.fit.length,
        heldOut: halves.held.length,
        eceBefore: reliability(halves.held).ece,
        eceAfter: reliability(after).ece,
        logLossBefore: mean(halves.held.map(logLoss)),
        logLossAfter: mean(after.map(logLoss)),
      },
    ];
  });
}

/** The probe as a yes/no reading: yes (index 0) is right when the context suffices. */
function sufficiencyScored(reading: Decided, sufficient: boolean): Scored {
  return { p: [reading.contextSufficiency, 1 - reading.contextSufficiency], answer: sufficient ? 0 : 1 };
}
