import { rescaled, type Target } from '../decision/scaling.js';
import { difference, type Interval } from './bootstrap.js';
import { readingsOf, slotsOf, type Halves } from './calibration-readings.js';
import { fitScaling, HIGHEST_TEMPERATURE, LARGEST_OFFSET, LOWEST_TEMPERATURE } from './fit-scaling.js';
import { logLoss, reliability, type Scored } from './metrics.js';
import type { Plan } from './plan.js';
import type { Outcome } from './run.js';

/**
 * Fitting a scaling per target (each mode's answer, and the sufficiency probe) on the
 * even half of a labelled set, judged on the odd half (calibration-readings.ts says
 * which readings): a temperature, with offsets for the places answers stand at
 * (choice, score) or for yes (noul, the probe) (decision/scaling.ts, fit-scaling.ts).
 * A fit is kept only when it makes the held-out readings better beyond noise;
 * otherwise T = 1 and no offsets are kept, so a calibration run can leave an engine
 * as it was but never make it worse than the held-out figures can tell.
 *
 * The bounds (fit-scaling.ts): T in [0.25, 8]. Below 0.25 a fit sharpens so hard that
 * a middling reading becomes a certainty: a crafted set fitted T = 0.02 and turned a
 * served 0.558 into 1.000, while its held-out ECE fell to 0. At T = 0.25 the same 0.558
 * (yes/no) is served as 0.72, and a three-way 0.5 / 0.25 / 0.25 as 0.89. Above 8 a fit
 * flattens every answer toward uniform: even the surest yes/no reading the API can
 * state (0.9999) is served as 0.76. Offsets stay within ±3.
 */

export { HIGHEST_TEMPERATURE, LOWEST_TEMPERATURE };

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
  /** The offsets fitted with it (decision/scaling.ts); null when not fitted. */
  offsets: number[] | null;
  /** True when that temperature is stored and applied; false when T = 1 is stored instead, or nothing (not fitted). */
  kept: boolean;
  /** The temperature the ledger now holds for the target: the fit's, 1, or null when it was left as it was. */
  stored: number | null;
  /** The offsets the ledger now holds: the fit's when kept, else none. */
  storedOffsets: number[] | null;
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
      offsets: null,
      kept: false,
      stored: null,
      storedOffsets: null,
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
  const mode = target === 'sufficiency' ? 'noul' : target;
  const scaling = fitScaling(mode, even, { offsets: true });
  const { temperature } = scaling;
  const offsets = [...(scaling.offsets ?? [])];
  const boundHit =
    temperature <= LOWEST_TEMPERATURE || temperature >= HIGHEST_TEMPERATURE || offsets.some((o) => Math.abs(o) >= LARGEST_OFFSET);
  const after = odd.map((s) => ({ p: rescaled(mode, s.p, scaling), answer: s.answer }));
  const change = difference(
    odd.map((s, i) => ({ a: s, b: after[i] })),
    (sample) => totalLogLoss(sample) / sample.length,
  )!;
  const kept = change.interval.high < 0;
  const loss = `held-out log loss ${change.a.toFixed(3)} → ${change.b.toFixed(3)} [${signed(change.interval.low)}, ${signed(change.interval.high)}]`;
  const fitted = `T = ${temperature.toFixed(2)}${describeOffsets(mode, offsets)}`;
  const verdict = kept ? `better beyond noise, kept ${fitted}` : `not better beyond noise (the fit: ${fitted}), kept T = 1`;
  const bound = !boundHit
    ? ''
    : `; the fit reached a bound (T from ${LOWEST_TEMPERATURE} to ${HIGHEST_TEMPERATURE}, offsets within ±${LARGEST_OFFSET}): the readings asked for more`;
  return {
    ...sizes,
    temperature,
    offsets,
    kept,
    stored: kept ? temperature : 1,
    storedOffsets: kept ? offsets : null,
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

/** ", places +0.41 0 −0.22" or ", yes −0.30"; nothing when every offset is 0. */
function describeOffsets(mode: 'choice' | 'noul' | 'score', offsets: readonly number[]): string {
  if (!offsets.some((o) => o !== 0)) return '';
  return `, ${mode === 'noul' ? 'yes' : 'places'} ${offsets.map((o) => (o === 0 ? '0' : `${o > 0 ? '+' : '−'}${Math.abs(o).toFixed(2)}`)).join(' ')}`;
}

function totalLogLoss(scored: readonly Scored[]): number {
  return scored.reduce((sum, s) => sum + logLoss(s), 0);
}

/** +0.010, −0.004: the sign always shown, a true minus. */
export function signed(x: number): string {
  return (x < 0 ? '−' : '+') + Math.abs(x).toFixed(3);
}
