import type { Order } from '../decision/orders.js';
import type { EvalItem } from './item.js';
import type { Decided } from './run.js';

/** Classes of an item in its own order: its options, its levels, or yes then no. */
export function classesOf(item: EvalItem): readonly string[] {
  return item.mode === 'choice' ? item.options : item.mode === 'score' ? item.levels : ['yes', 'no'];
}

/** The index of the labelled answer among the item's classes. */
export function answerIndex(item: EvalItem): number {
  return item.mode === 'noul' ? (item.answer ? 0 : 1) : classesOf(item).indexOf(item.answer);
}

/**
 * A decision's distribution over the item's classes in the item's order, whatever
 * order it was asked in (`order`: the item's class shown at each place of the request).
 * The unrounded reading when the decider has it (an engine in this process), else the
 * reported probabilities, matched by label.
 */
export function distribution(item: EvalItem, decided: Decided, order?: Order): number[] {
  let p: number[];
  if (decided.distribution && item.mode === 'noul') p = [...decided.distribution];
  else if (decided.distribution) {
    p = new Array(decided.distribution.length);
    decided.distribution.forEach((x, place) => (p[order ? order[place] : place] = x));
  } else {
    const result = decided.result;
    p =
      'yesProbability' in result
        ? [result.yesProbability, 1 - result.yesProbability]
        : classesOf(item).map((label) => result.probabilities[label] ?? 0);
  }
  const sum = p.reduce((a, b) => a + b, 0);
  return sum > 0 ? p.map((x) => x / sum) : p.map(() => 1 / p.length);
}
