import type { Reading } from './outcome.js';

/**
 * Temperature scaling: p ∝ p^(1/T). T > 1 softens an overconfident engine's
 * answers, T < 1 sharpens an underconfident one's; the ranking never changes, so no
 * answer flips, only how sure it is said to be. The temperatures are fitted per
 * engine, model and target by `decide calibrate` (eval/calibrate.ts) and kept in
 * the ledger.
 */

export type Target = 'choice' | 'noul' | 'score' | 'sufficiency';
export type Temperatures = Partial<Record<Target, number>>;

export function scaled(p: readonly number[], temperature: number): number[] {
  if (temperature === 1) return [...p];
  const powered = p.map((x) => x ** (1 / temperature));
  const sum = powered.reduce((a, b) => a + b, 0);
  return sum > 0 ? powered.map((x) => x / sum) : [...p];
}

/** The temperatures of a list of fitted ones (the ledger's records), by target. */
export function temperaturesOf(fitted: ReadonlyArray<{ target: Target; temperature: number }>): Temperatures {
  return Object.fromEntries(fitted.map((f) => [f.target, f.temperature]));
}

/** "choice 2.84, noul 1.90": for the operator's start line. */
export function describeTemperatures(temperatures: Temperatures): string {
  const parts = Object.entries(temperatures).map(([target, t]) => `${target} ${t.toFixed(2)}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** A main reading with its mode's temperature applied, if one was fitted. */
export function calibrated(reading: Reading, temperatures: Temperatures): Reading {
  const t = temperatures[reading.mode];
  if (t === undefined) return reading;
  if (reading.mode === 'noul') return { mode: 'noul', yes: scaled([reading.yes, 1 - reading.yes], t)[0] };
  return { ...reading, p: scaled(reading.p, t) };
}

/** The probability that the context suffices, with the probe's temperature applied. */
export function calibratedSufficiency(yes: number, temperatures: Temperatures): number {
  const t = temperatures.sufficiency;
  return t === undefined ? yes : scaled([yes, 1 - yes], t)[0];
}
