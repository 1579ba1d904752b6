import { z } from 'zod';
import { identityOrder } from '../decision/orders.js';
import { mean, topChanged, topIndices, totalVariation } from './metrics.js';
import type { ItemRecord } from './records.js';

/**
 * What the order the answers are shown in does to them (docs/eval.md, "Position
 * bias"). Each figure sets what the engine did beside what the labels would have it
 * do, so a bias toward a place or a label is a number with its sign:
 *
 * - flips: how often another order changes the top answer, on complete contexts and
 *   on twins apart (a twin's near-uniform guess flips for nothing, and would drown a
 *   real bias in the complete items' figure);
 * - places: in every order asked, what the answers shown first, in between or last
 *   gain by standing there, against their own mean over the orders;
 * - the middle level of a score question, and yes, against how often they are right:
 *   a bias toward a label whatever its place, which reversing cannot cancel.
 */

const figure = z.number().nullable();
const ModeFlips = z.object({ n: z.int(), flipRate: figure });
const NO_FLIPS = { n: 0, flipRate: null };
const Flips = z.object({
  n: z.int(),
  flipRate: figure,
  meanShift: figure,
  /**
   * The flip rate per mode. They differ in what a request can reorder: a choice's
   * options (the engine is shown them sorted, so every order asks the same prompt and
   * what flips is the engine reading it twice: llama.cpp's noise on a near-tie), a
   * score's levels (their order is their meaning, so another order is another scale),
   * a yes/no question's answers (a request cannot reorder them at all: No first is
   * the evaluation's own variant). So only `choice` is an answer a caller could move;
   * the others measure the engine's pull toward a place. Absent from reports written
   * before it was.
   */
  modes: z.object({ choice: ModeFlips, noul: ModeFlips, score: ModeFlips }).default({ choice: NO_FLIPS, noul: NO_FLIPS, score: NO_FLIPS }),
});
/**
 * How often something is the top answer, the mean probability stated for it, how often
 * it is the right one, and its bias (for a label, stated − truth: the stated
 * probability moves with any bias, where the top answer only moves once it flips).
 */
const Share = z.object({ top: figure, stated: figure, truth: figure, bias: figure });

export const PositionBias = z.object({
  /** Orders asked per choice or score item, the written one included. */
  orders: z.int(),
  complete: Flips,
  twins: Flips,
  /** Mean probability a class gains by being shown first rather than last (reversed order, complete items). */
  primacy: figure,
  places: z.object({ n: z.int(), first: Share, middle: Share, last: Share }),
  middleLevel: Share.extend({ n: z.int() }),
  yes: Share.extend({ n: z.int() }),
});
export type PositionBias = z.infer<typeof PositionBias>;

/** Every reading of an item with the order it was shown in: as written, then the others that were answered. */
function readings(record: ItemRecord): { order: readonly number[]; p: number[] }[] {
  if (!record.given) return [];
  const written = { order: identityOrder(record.given.p.length), p: record.given.p };
  return [written, ...record.orders.flatMap(({ order, p }) => (p ? [{ order, p }] : []))];
}

function flips(records: readonly ItemRecord[]): z.infer<typeof Flips> {
  const per = records.flatMap((record) => {
    const others = record.orders.flatMap(({ p }) => (p ? [p] : []));
    if (!record.given || others.length === 0) return [];
    const given = record.given.p;
    return [
      {
        mode: record.mode,
        changed: share(others.map((p) => topChanged(given, p))),
        shift: avg(others.map((p) => totalVariation(given, p))),
      },
    ];
  });
  const ofMode = (mode: ItemRecord['mode']) => {
    const mine = per.filter((x) => x.mode === mode);
    return { n: mine.length, flipRate: mean(mine.map((x) => x.changed)) };
  };
  return {
    n: per.length,
    flipRate: mean(per.map((x) => x.changed)),
    meanShift: mean(per.map((x) => x.shift)),
    modes: { choice: ofMode('choice'), noul: ofMode('noul'), score: ofMode('score') },
  };
}

/** Where a place falls: the first, the last, or in between. */
const placeOf = (place: number, k: number): 'first' | 'middle' | 'last' => (place === 0 ? 'first' : place === k - 1 ? 'last' : 'middle');

/**
 * Where answers stand and what that does: the share of top answers, and of the
 * probability stated, at each place, beside the share of right answers shown there;
 * and the place's `bias`, the mean probability an answer gains there against its own
 * mean over every order it was asked in. The bias compares an answer only with itself,
 * so what it says is order alone: 0 for an engine whose readings do not depend on the
 * order, whatever the set's mix of option counts and answer places (which moves `top`
 * and `stated` away from `truth` even then).
 */
function places(records: readonly ItemRecord[]): PositionBias['places'] {
  const zero = () => ({ first: 0, middle: 0, last: 0 });
  const [top, stated, truth, gained, slots] = [zero(), zero(), zero(), zero(), zero()];
  let n = 0;
  for (const record of records) {
    const all = readings(record);
    const k = record.given?.p.length ?? 0;
    const mean = Array.from({ length: k }, (_, c) => all.reduce((sum, r) => sum + r.p[c], 0) / all.length);
    for (const { order, p } of all) {
      const tops = topIndices(p);
      for (const t of tops) top[placeOf(order.indexOf(t), k)] += 1 / tops.length;
      truth[placeOf(order.indexOf(record.answer), k)] += 1;
      order.forEach((cls, place) => {
        stated[placeOf(place, k)] += p[cls];
        if (all.length > 1) {
          gained[placeOf(place, k)] += p[cls] - mean[cls];
          slots[placeOf(place, k)] += 1;
        }
      });
      n++;
    }
  }
  const shareOf = (place: keyof typeof top) => ({
    top: round(n ? top[place] / n : null),
    stated: round(n ? stated[place] / n : null),
    truth: round(n ? truth[place] / n : null),
    bias: round(slots[place] ? gained[place] / slots[place] : null),
  });
  return { n, first: shareOf('first'), middle: shareOf('middle'), last: shareOf('last') };
}

/** Over every reading of `records`: how often class `index` is on top, and how often it is right. */
function label(records: readonly ItemRecord[], index: number) {
  let top = 0;
  let truth = 0;
  let probability = 0;
  let n = 0;
  for (const record of records) {
    for (const { p } of readings(record)) {
      const tops = topIndices(p);
      if (tops.includes(index)) top += 1 / tops.length;
      if (record.answer === index) truth++;
      probability += p[index];
      n++;
    }
  }
  return { n, top: n ? top / n : null, truth: n ? truth / n : null, probability: n ? probability / n : null };
}

export function positionBias(records: readonly ItemRecord[]): PositionBias {
  const complete = records.filter((r) => r.sufficient);
  const ordered = complete.filter((r) => r.mode !== 'noul');
  const reversals = ordered.flatMap((r) => {
    const reversed = r.orders.find((o) => o.variant === 'reversed')?.p;
    return r.given && reversed ? [{ a: r.given.p, b: reversed }] : [];
  });
  const level = label(
    complete.filter((r) => r.mode === 'score'),
    1,
  );
  const yes = label(
    complete.filter((r) => r.mode === 'noul'),
    0,
  );
  return {
    orders: Math.max(0, ...records.filter((r) => r.mode !== 'noul').map((r) => 1 + r.orders.length)),
    complete: flips(complete),
    twins: flips(records.filter((r) => !r.sufficient)),
    // As written the item's first class is shown first; reversed, its last is.
    primacy: mean(reversals.map(({ a, b }) => (a[0] - b[0] + (b[b.length - 1] - a[a.length - 1])) / 2)),
    places: places(ordered),
    middleLevel: { n: level.n, ...compare(level.top, level.probability, level.truth) },
    yes: { n: yes.n, ...compare(yes.top, yes.probability, yes.truth) },
  };
}

/** A calibrated engine states, on average, what is true as often as it is: bias = stated − truth. */
function compare(top: number | null, stated: number | null, truth: number | null) {
  return { top: round(top), stated: round(stated), truth: round(truth), bias: diff(stated, truth) };
}

const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b));
const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000 + 0);
const avg = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const share = (xs: readonly boolean[]) => xs.filter(Boolean).length / xs.length;
