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
 * The 95 % interval of each figure `statistics` computes, resampling once for all of
 * them. A figure missing (null) on the units themselves gets no interval; resamples on
 * which it is null (all units of one kind drawn away) are left out of its interval.
 */
export function intervals<T>(
  units: readonly T[],
  statistics: (sample: readonly T[]) => Record<string, number | null>,
  options: { resamples?: number; seed?: number } = {},
): Record<string, Interval> {
  if (units.length === 0) return {};
  const own = statistics(units);
  const names = Object.keys(own).filter((name) => own[name] !== null);
  const values = new Map(names.map((name) => [name, [] as number[]]));
  for (const picks of resamples(units.length, options.resamples ?? RESAMPLES, options.seed ?? SEED)) {
    const figures = statistics(picks.map((i) => units[i]));
    for (const name of names) {
      const value = figures[name];
      if (value !== null && value !== undefined && Number.isFinite(value)) values.get(name)!.push(value);
    }
  }
  const out: Record<string, Interval> = {};
  for (const name of names) {
    const range = percentiles(values.get(name)!);
    if (range) out[name] = range;
  }
  return out;
}

/** The 95 % interval of one statistic over `units`; null when it has no value on the units themselves. */
export function interval<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: { resamples?: number; seed?: number } = {},
): Interval | null {
  return intervals(units, (sample) => ({ value: statistic(sample) }), options).value ?? null;
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

export interface Difference {
  a: number;
  b: number;
  difference: number;
  interval: Interval;
  /** True when the interval of B − A leaves out 0: B differs from A beyond what resampling the same items explains. */
  differs: boolean;
}

/**
 * Paired differences B − A of each figure `statistics` computes, on the same
 * resampled units of each side.
 */
export function differences<T>(
  pairs: ReadonlyArray<{ a: T; b: T }>,
  statistics: (sample: readonly T[]) => Record<string, number | null>,
  options: { resamples?: number; seed?: number } = {},
): Record<string, Difference> {
  const a = statistics(pairs.map((p) => p.a));
  const b = statistics(pairs.map((p) => p.b));
  const ranges = intervals(
    pairs,
    (sample) => {
      const sa = statistics(sample.map((p) => p.a));
      const sb = statistics(sample.map((p) => p.b));
      return Object.fromEntries(
        Object.keys(sa).map((name) => [
          name,
          sa[name] === null || sb[name] === null || sb[name] === undefined ? null : sb[name]! - sa[name]!,
        ]),
      );
    },
    options,
  );
  const out: Record<string, Difference> = {};
  for (const [name, range] of Object.entries(ranges)) {
    const [x, y] = [a[name], b[name]];
    if (x === null || y === null || y === undefined) continue;
    out[name] = { a: round(x), b: round(y), difference: round(y - x), interval: range, differs: range.low > 0 || range.high < 0 };
  }
  return out;
}

/** A paired difference B − A of one statistic; null when either side has no value. */
export function difference<T>(
  pairs: ReadonlyArray<{ a: T; b: T }>,
  statistic: (sample: readonly T[]) => number | null,
  options: { resamples?: number; seed?: number } = {},
): Difference | null {
  return differences(pairs, (sample) => ({ value: statistic(sample) }), options).value ?? null;
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000 + 0;
