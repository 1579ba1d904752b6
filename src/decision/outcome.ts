import type { DecisionResult, Signal } from '../contract/answer.js';
import { LOW_LABEL_MASS } from '../contract/wording.js';

/**
 * Turns main answers into the contract's `result` and `signal` (docs/api.md,
 * "Decisions").
 *
 * Two kinds of numbers come out of here. Discrete decisions — `selected`, the
 * `signal`, a stress check's `agrees` — are taken on the rounded values the caller
 * sees, so they can be checked against the response and the contract's boundaries
 * (0.6, 0.4, 0.15, 0.5) hold exactly. Continuous values — `confidence`, `score` —
 * are computed from the unrounded distribution and rounded once, so rounding
 * errors do not compound (a uniform three-way split has confidence 0, not 0.0001).
 * A stress check's `shift` is measured between two reported distributions, so it is
 * exact at 4 decimals and reproducible from the response.
 */

/** Probabilities are reported in steps of 1e-4; integer steps make comparisons exact. */
const UNITS = 10_000;

const SUFFICIENT = 0.5 * UNITS;
const YES_AT = 0.6 * UNITS;
const NO_AT = 0.4 * UNITS;
const DIRECTIONAL_LEAD = 0.15 * UNITS;

/** A main answer in the request's order, normalised (sums to 1) but not rounded. */
export type Reading = { mode: 'noul'; yes: number } | { mode: 'choice' | 'score'; labels: readonly string[]; p: readonly number[] };

export function round4(x: number): number {
  // `+ 0` turns a -0 from rounding a tiny negative into 0.
  return Math.round(x * UNITS) / UNITS + 0;
}

/** A value already rounded to 4 decimals, as an exact integer number of steps. */
function units(x: number): number {
  return Math.round(x * UNITS);
}

/**
 * Rounds a normalised distribution to 4 decimals so that it still sums to 1: every
 * value is floored to a step and the steps left over go to the largest remainders
 * (ties: the earlier index). Each value moves by less than one step and the order
 * is kept (a ≥ b before ⇒ a ≥ b after), which fixing only the largest value by the
 * residual would not guarantee.
 */
export function roundDistribution(p: readonly number[]): number[] {
  const scaled = p.map((x) => x * UNITS);
  const steps = scaled.map(Math.floor);
  let missing = UNITS - steps.reduce((a, b) => a + b, 0);
  const byRemainder = scaled.map((_, i) => i).sort((a, b) => scaled[b] - steps[b] - (scaled[a] - steps[a]) || a - b);
  for (const i of byRemainder) {
    if (missing <= 0) break;
    steps[i]++;
    missing--;
  }
  return steps.map((s) => s / UNITS);
}

/**
 * A result's `confidence`: the normalised peak (k·pmax − 1)/(k − 1), clipped to [0, 1]:
 * 0 when uniform, 1 when certain. A margin, not a probability (contract/answer.ts).
 */
export function peakConfidence(pmax: number, k: number): number {
  const c = (k * pmax - 1) / (k - 1);
  return round4(Math.min(1, Math.max(0, c)));
}

/** Expected level index Σ i·pᵢ, 0 = the lowest level. */
export function expectedLevel(p: readonly number[]): number {
  return round4(p.reduce((sum, pi, i) => sum + i * pi, 0));
}

/** Index of the largest value; ties go to the first, i.e. the earliest in request order. */
export function topIndex(values: readonly number[]): number {
  let top = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[top]) top = i;
  return top;
}

/**
 * A main answer as reported: the contract's `result`, plus its rounded distribution
 * in request order and its top answer, which stress checks and the signal compare.
 * Kept beside the result because a JSON object cannot always keep the request's
 * key order (integer-like keys such as "2025" are enumerated first).
 */
export interface Weighed {
  result: DecisionResult;
  /** Rounded probabilities as integer steps of 1e-4, in request order; noul as [no, yes]. */
  steps: number[];
  /** The top label (ties: the first in request order); noul: `yes`, `no` or `even` at exactly 0.5. */
  top: string;
}

export function weigh(reading: Reading): Weighed {
  if (reading.mode === 'noul') {
    const yesProbability = round4(reading.yes);
    const yes = units(yesProbability);
    const top = yes > UNITS / 2 ? 'yes' : yes < UNITS / 2 ? 'no' : 'even';
    return { result: { yesProbability }, steps: [UNITS - yes, yes], top };
  }
  const rounded = roundDistribution(reading.p);
  const probabilities = Object.fromEntries(reading.labels.map((label, i) => [label, rounded[i]]));
  const confidence = peakConfidence(Math.max(...reading.p), reading.p.length);
  const top = reading.labels[topIndex(rounded)];
  const result: DecisionResult =
    reading.mode === 'choice'
      ? { selected: top, confidence, probabilities }
      : { score: expectedLevel(reading.p), likeliest: top, confidence, probabilities };
  return { result, steps: rounded.map(units), top };
}

/**
 * The signal as docs/api.md's "Decisions" gives it, in its order, on the reported
 * (rounded) values; `labelMass` null when the engine does not say. An answer that
 * rests on less than LOW_LABEL_MASS of the model's probability is `unclear`: on both
 * real models of CI the figures chose that over refusing it (docs/api.md, "How much
 * an answer rests on").
 */
export function signalOf(weighed: Weighed, contextSufficiency: number, labelMass: number | null = null): Signal {
  if (units(contextSufficiency) < SUFFICIENT) return 'needs-context';
  if (labelMass !== null && units(labelMass) < LOW_LABEL_MASS * UNITS) return 'unclear';
  if ('yesProbability' in weighed.result) {
    const yes = weighed.steps[1];
    if (yes >= YES_AT) return 'yes';
    if (yes <= NO_AT) return 'no';
    return 'unclear';
  }
  const [top, second] = [...weighed.steps].sort((a, b) => b - a);
  return top - second >= DIRECTIONAL_LEAD ? 'directional' : 'unclear';
}

/** Whether an answer leads clearly: yes/no outside 0.4–0.6, a choice or score ahead by 0.15 (the signal's own lines). */
export function leadsClearly(weighed: Weighed): boolean {
  return signalOf(weighed, 1) !== 'unclear';
}

/** Total variation distance between two reported distributions of the same question. */
export function totalVariation(a: Weighed, b: Weighed): number {
  const sum = a.steps.reduce((acc, s, i) => acc + Math.abs(s - b.steps[i]), 0);
  // Both sides sum to UNITS, so the absolute differences sum to an even number of
  // steps: the distance is exact at 4 decimals and needs no further rounding.
  return sum / 2 / UNITS;
}
