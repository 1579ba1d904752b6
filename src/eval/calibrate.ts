import { scaled, type Target } from '../decision/temperature.js';
import { difference, type Interval } from './bootstrap.js';
import { readingsOf, slotsOf, type Halves } from './calibration-readings.js';
import { logLoss, reliability, round, type Scored } from './metrics.js';
import type { Plan } from './plan.js';
import type { Outcome } from './run.js';

/**
 * Fitting a temperature per target (each mode's answer, and the sufficiency probe) on
 * the even half of a labelled set, judged on the odd half (calibration-readings.ts
 * says which readings). A fit is kept only when it makes the held-out readings
 * better beyond noise; otherwise T = 1 is kept, so a calibration run can leave an
 * engine as it was but never make it worse than the held-out figures can tell.
 */

/**
 * The temperatures a fit may choose. Below 0.25 a fit sharpens so hard that a
 * middling reading becomes a certainty: a crafted set fitted T = 0.02 and turned a
 * served 0.558 into 1.000, while its held-out ECE fell to 0. At T = 0.25 the same
 * 0.558 (yes/no) is served as 0.72, and a three-way 0.5 / 0.25 / 0.25 as 0.89: an
 * underconfident engine is still sharpened a lot, but a reading away from the ends
 * stays away from them. Above 8 a fit flattens every answer toward uniform: at T = 8
 * even the surest yes/no reading the API can state (0.9999) is served as 0.76. An
 * engine whose readings need more than that carries next to no information in them;
 * a fit at either bound is reported, as the data asked for more than is allowed.
 */
export const LOWEST_TEMPERATURE = 0.25;
export const HIGHEST_TEMPERATURE = 8;

/**
 * Fewer held-out readings than this and a target is not fitted: the paired bootstrap
 * of 20 readings is already wide, and below that the keep-or-not decision would be
 * a coin toss. The fitting half needs as many, or the fit itself is the coin toss.
 */
export const MIN_READINGS = 20;

export interface Fit {
  target: Target;
  /** The temperature the fitting half asks for; null when the target was not fitted. */
  temperature: number | null;
  /** True when that temperature is stored and applied; false when T = 1 is stored instead, or nothing (not fitted). */
  kept: boolean;
  /** What the ledger now holds for the target: the fit, 1, or null when it was left as it was. */
  stored: number | null;
  /** One line: why it was kept, not kept, or not fitted. */
  reason: string;
  /** Readings fitted on, and held out to judge. */
  fitted: number;
  heldOut: number;
  eceBefore: number | null;
  eceAfter: number | null;
  logLossBefore: number | null;
  logLossAfter: number | null;
  /** Held-out log loss after − before, and its paired bootstrap 95 % interval (units: held-out readings). */
  logLossDifference: number | null;
  logLossInterval: Interval | null;
  /** True when the temperature is at LOWEST_TEMPERATURE or HIGHEST_TEMPERATURE. */
  boundHit: boolean;
}

/**
 * The temperature in [LOWEST_TEMPERATURE, HIGHEST_TEMPERATURE] that minimises the
 * mean log loss of `scored`. The loss is convex in the inverse temperature β = 1/T,
 * so a golden-section search over ln β finds its minimum; with nothing to fit it is 1.
 */
export function fitTemperature(scored: readonly Scored[]): number {
  if (scored.length === 0) return 1;
  const loss = (lnInverse: number) => totalLogLoss(scored, 1 / Math.exp(lnInverse));
  let lo = Math.log(1 / HIGHEST_TEMPERATURE);
  let hi = Math.log(1 / LOWEST_TEMPERATURE);
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

/** Fits every target the plan has readings for, and judges each on its held-out half. */
export function fitAll(plan: Pick<Plan, 'items'>, outcomes: ReadonlyMap<string, Outcome>): Fit[] {
  return [...readingsOf(slotsOf(plan), outcomes)].map(([target, halves]) => judge(target, halves));
}

/** The fit of one target: refused when either half is too small, else kept only when it helps beyond noise. */
export function judge(target: Target, { even, odd }: Halves<readonly Scored[]>): Fit {
  const sizes = { target, fitted: even.length, heldOut: odd.length };
  if (even.length < MIN_READINGS || odd.length < MIN_READINGS) {
    return {
      ...sizes,
      temperature: null,
      kept: false,
      stored: null,
      reason: `too few readings (${even.length} to fit, ${odd.length} held out; ${MIN_READINGS} of each needed): not fitted, the ledger's temperature left as it was`,
      eceBefore: null,
      eceAfter: null,
      logLossBefore: null,
      logLossAfter: null,
      logLossDifference: null,
      logLossInterval: null,
      boundHit: false,
    };
  }
  const temperature = fitTemperature(even);
  const boundHit = temperature <= LOWEST_TEMPERATURE || temperature >= HIGHEST_TEMPERATURE;
  const after = odd.map((s) => ({ p: scaled(s.p, temperature), answer: s.answer }));
  const change = difference(
    odd.map((s, i) => ({ a: s, b: after[i] })),
    (sample) => totalLogLoss(sample, 1) / sample.length,
  )!;
  const kept = change.interval.high < 0;
  const loss = `held-out log loss ${change.a.toFixed(3)} → ${change.b.toFixed(3)} [${signed(change.interval.low)}, ${signed(change.interval.high)}]`;
  const verdict = kept ? `better beyond noise, kept T = ${temperature.toFixed(2)}` : 'not better beyond noise, kept T = 1';
  const bound = !boundHit
    ? ''
    : temperature <= LOWEST_TEMPERATURE
      ? `; T = ${temperature.toFixed(2)} is the lowest allowed (the readings asked for sharper)`
      : `; T = ${temperature.toFixed(2)} is the highest allowed (the readings asked for flatter)`;
  return {
    ...sizes,
    temperature,
    kept,
    stored: kept ? temperature : 1,
    reason: `${loss}: ${verdict}${bound}`,
    eceBefore: reliability(odd).ece,
    eceAfter: reliability(after).ece,
    logLossBefore: change.a,
    logLossAfter: change.b,
    logLossDifference: change.difference,
    logLossInterval: change.interval,
    boundHit,
  };
}

function totalLogLoss(scored: readonly Scored[], temperature: number): number {
  return scored.reduce((sum, s) => sum + logLoss({ p: scaled(s.p, temperature), answer: s.answer }), 0);
}

/** +0.010, −0.004: the sign always shown, a true minus. */
export function signed(x: number): string {
  return (x < 0 ? '−' : '+') + Math.abs(x).toFixed(3);
}
