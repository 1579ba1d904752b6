import { seeded } from './random.js';

/**
 * Seeded percentile bootstrap. A figure computed from n units (items, or an item with
 * its variants) is recomputed on resamples of n units drawn with replacement; the
 * 2.5th and 97.5th percentiles of those figures are its 95 % interval. The seed is
 * fixed, so a report's intervals are the same on every run of the same readings.
 *
 * Paired comparisons resample the same units for both sides (`difference`), so what
 * two runs share (an item both get right or wrong) cancels out of the interval.
 */

export interface Interval {
  low: number;
  high: number;
}

export const RESAMPLES = 1000;
export const SEED = 20261125;

/** Indices of `n` units resampled with replacement, `resamples` times. */
function* resamples(n: number, count: number, seed: number): Generator<number[]> {
  const next = seeded(seed);
  for (let r = 0; r < count; r++) yield Array.from({ length: n }, () => Math.floor(next() * n));
}

/**
 * The 95 % interval of `statistic` over `units`; null when the statistic has no value
 * on the units themselves. Resamples on which it has none (all units of one kind
 * drawn away) are left out.
 */
export function interval<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: { resamples?: number; seed?: number } = {},
): Interval | null {
  if (units.length === 0 || statistic(units) === null) return null;
  const values: number[] = [];
  for (const picks of resamples(units.length, options.resamples ?? RESAMPLES, options.seed ?? SEED)) {
    const value = statistic(picks.map((i) => units[i]));
    if (value !== null && Number.isFinite(value)) values.push(value);
  }
  return percentiles(values);
}

/** The 2.5th and 97.5th percentiles (linear interpolation), rounded to 4 decimals. */
export function percentiles(values: readonly number[]): Interval | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = q * (sorted.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  };
  return { low: round(at(0.025)), high: round(at(0.975)) };
}

/**
 * A paired difference B − A: `statistic` computed on the same resampled units of each
 * side. `differs` is true when the interval of the difference leaves out 0: B differs
 * from A beyond what resampling the same items explains.
 */
export function difference<T>(
  pairs: ReadonlyArray<{ a: T; b: T }>,
  statistic: (sample: readonly T[]) => number | null,
  options: { resamples?: number; seed?: number } = {},
): { a: number; b: number; difference: number; interval: Interval; differs: boolean } | null {
  const a = statistic(pairs.map((p) => p.a));
  const b = statistic(pairs.map((p) => p.b));
  if (a === null || b === null) return null;
  const range = interval(pairs, (sample) => {
    const sa = statistic(sample.map((p) => p.a));
    const sb = statistic(sample.map((p) => p.b));
    return sa === null || sb === null ? null : sb - sa;
  }, options);
  if (range === null) return null;
  return { a: round(a), b: round(b), difference: round(b - a), interval: range, differs: range.low > 0 || range.high < 0 };
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000 + 0;
