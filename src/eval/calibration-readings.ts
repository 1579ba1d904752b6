import { canonicalOrder, inCanonicalOrder } from '../decision/orders.js';
import type { Target } from '../decision/scaling.js';
import { splitHalves, type Half } from './halves.js';
import { type EvalItem, isSufficient } from './item.js';
import type { Scored } from './metrics.js';
import type { Plan } from './plan.js';
import { answerIndex, distribution } from './readings.js';
import type { Decided, Outcome } from './run.js';

/**
 * The readings each temperature is fitted and judged on, and in which half each falls.
 *
 * - A mode's answer: the reading of each sufficient item of that mode, as written.
 * - The sufficiency probe: every distinct request among the items as written and the
 *   items without their decisive fact, once. A set's twin (`<id>-nofact`) is the same
 *   request as its original without the fact, so counting both would weigh each
 *   incomplete context twice. A request is labelled as the set labels it (an item's
 *   own `sufficient`), else insufficient (it lacks its item's decisive fact).
 *
 * The halves are those of `splitHalves`: temperatures are fitted on the even half and
 * judged on the odd one. A twin and its original are one group, so one request never
 * sits on both sides.
 */

export const TARGETS: readonly Target[] = ['choice', 'noul', 'score', 'sufficiency'];

/** One reading a target would use: which request, which half, and how to score its decision. */
export interface Slot {
  target: Target;
  key: string;
  half: Half;
  score(decided: Decided): Scored;
}

export interface Halves<T> {
  even: T;
  odd: T;
}

export function slotsOf(plan: Pick<Plan, 'items'>): Slot[] {
  const halfOf = splitHalves(plan.items.map((p) => p.item));
  const slots = new Map<string, Slot>();
  // The first claim on a (target, request) pair wins: an item as written before any variant.
  const add = (slot: Slot) => slots.has(`${slot.target} ${slot.key}`) || slots.set(`${slot.target} ${slot.key}`, slot);
  for (const { item, given } of plan.items) {
    const half = halfOf.get(item.id)!;
    if (isSufficient(item))
      add({ target: item.mode, key: given, half, score: (d) => shown(item, distribution(item, d), answerIndex(item)) });
    add({ target: 'sufficiency', key: given, half, score: (d) => probe(d, isSufficient(item)) });
  }
  for (const { item, withoutFact } of plan.items) {
    if (withoutFact !== null) add({ target: 'sufficiency', key: withoutFact, half: halfOf.get(item.id)!, score: (d) => probe(d, false) });
  }
  return [...slots.values()];
}

/** How many readings each target would have in each half if every request succeeded (targets with none left out). */
export function sizesOf(slots: readonly Slot[]): Map<Target, Halves<number>> {
  const sizes = new Map<Target, Halves<number>>();
  for (const target of TARGETS) {
    const mine = slots.filter((s) => s.target === target);
    if (mine.length)
      sizes.set(target, { even: mine.filter((s) => s.half === 'even').length, odd: mine.filter((s) => s.half === 'odd').length });
  }
  return sizes;
}

/** The scored readings of each target (every target with slots, possibly with none read), by half; failed requests left out. */
export function readingsOf(slots: readonly Slot[], outcomes: ReadonlyMap<string, Outcome>): Map<Target, Halves<Scored[]>> {
  const readings = new Map<Target, Halves<Scored[]>>();
  for (const slot of slots) {
    const halves = readings.get(slot.target) ?? { even: [], odd: [] };
    readings.set(slot.target, halves);
    const outcome = outcomes.get(slot.key);
    if (outcome?.ok) halves[slot.half].push(slot.score(outcome.decided));
  }
  return new Map(TARGETS.flatMap((t) => (readings.has(t) ? [[t, readings.get(t)!] as const] : [])));
}

/**
 * A reading in the order its answers were shown, as a scaling's place offsets read it
 * (decision/scaling.ts): a choice's options sorted, levels and yes/no as listed.
 */
function shown(item: EvalItem, p: number[], answer: number): Scored {
  if (item.mode !== 'choice') return { p, answer };
  return { p: inCanonicalOrder(item.options, p), answer: canonicalOrder(item.options).indexOf(answer) };
}

/** The probe as a yes/no reading: yes (index 0) is right when the context suffices. */
function probe(decided: Decided, sufficient: boolean): Scored {
  return { p: [decided.contextSufficiency, 1 - decided.contextSufficiency], answer: sufficient ? 0 : 1 };
}
