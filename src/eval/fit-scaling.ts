import { rescaled, type Scaling } from '../decision/scaling.js';
import type { Scored } from './metrics.js';
import { LOG_FLOOR } from './metrics.js';

/**
 * Fitting a scaling (decision/scaling.ts) by log loss: the temperature alone, or with
 * offsets for places (choice, score) or for yes (noul). The loss is convex in the
 * inverse temperature and the offsets (the rescaled logits are linear in them), so
 * minimising one parameter at a time, in turn, reaches the minimum.
 *
 * Bounds keep a fit on few or crafted items from turning readings into certainties:
 * T in [0.25, 8] (eval/calibrate.ts says why) and offsets within ±3 (odds of 20 : 1 for
 * a place or a label, more than any bias a fit on a few dozen items could show).
 */

export const LOWEST_TEMPERATURE = 0.25;
export const HIGHEST_TEMPERATURE = 8;
export const LARGEST_OFFSET = 3;

export type Mode = 'choice' | 'noul' | 'score';

export function meanLogLoss(mode: Mode, scored: readonly Scored[], scaling: Scaling): number {
  let sum = 0;
  for (const s of scored) sum -= Math.log(Math.max(LOG_FLOOR, rescaled(mode, s.p, scaling)[s.answer]));
  return sum / scored.length;
}

/**
 * The scaling of least mean log loss on `scored`. With `offsets`: choice and score get
 * offsets for the first and the last place (the places in between are the reference,
 * 0), noul one for yes.
 */
export function fitScaling(mode: Mode, scored: readonly Scored[], options: { offsets: boolean }): Scaling {
  if (scored.length === 0) return { temperature: 1 };
  // x[0] = ln β (β = 1/T); then the free offsets.
  const free = !options.offsets ? [] : mode === 'noul' ? [0] : [0, 2];
  const size = mode === 'noul' ? 1 : 3;
  const scalingOf = (x: readonly number[]): Scaling => {
    const offsets = new Array<number>(size).fill(0);
    free.forEach((slot, j) => (offsets[slot] = x[j + 1]));
    return { temperature: 1 / Math.exp(x[0]), ...(free.length ? { offsets } : {}) };
  };
  const bounds = [
    [Math.log(1 / HIGHEST_TEMPERATURE), Math.log(1 / LOWEST_TEMPERATURE)],
    ...free.map(() => [-LARGEST_OFFSET, LARGEST_OFFSET]),
  ];
  const x = bounds.map(() => 0);
  const loss = (y: readonly number[]) => meanLogLoss(mode, scored, scalingOf(y));
  for (let sweep = 0; sweep < (free.length ? 25 : 1); sweep++) {
    for (let d = 0; d < x.length; d++) {
      x[d] = goldenSection((v) => loss(x.map((old, j) => (j === d ? v : old))), bounds[d][0], bounds[d][1]);
    }
  }
  const fitted = scalingOf(x);
  return {
    temperature: round(fitted.temperature),
    ...(fitted.offsets ? { offsets: fitted.offsets.map(round) } : {}),
  };
}

/** The minimum of a convex function on [lo, hi]. */
function goldenSection(f: (v: number) => number, lo: number, hi: number): number {
  const golden = (Math.sqrt(5) - 1) / 2;
  let a = hi - golden * (hi - lo);
  let b = lo + golden * (hi - lo);
  let fa = f(a);
  let fb = f(b);
  for (let step = 0; step < 50; step++) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - golden * (hi - lo);
      fa = f(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + golden * (hi - lo);
      fb = f(b);
    }
  }
  return (lo + hi) / 2;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000 + 0;
