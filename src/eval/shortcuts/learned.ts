import type { Prediction } from './choice.js';
import type { Case } from './reading.js';

/**
 * Rules that learn from the other items of the family: what the question alone says,
 * and one number of the context against a threshold. `others` never holds the item
 * being answered (nor, for a twin, its original: twins learn from twins), so a rule
 * can only exploit what the family's siblings share, never the item's own label.
 */

const sameClasses = (a: Case, b: Case) =>
  a.classes.length === b.classes.length && [...a.classes].sort().join('\u0000') === [...b.classes].sort().join('\u0000');

/** The answer most often labelled among siblings asking the same question of the same classes. */
export function questionOnly(c: Case, others: readonly Case[]): Prediction {
  const peers = others.filter((o) => o.item.question.trim() === c.item.question.trim() && sameClasses(o, c));
  if (peers.length === 0) return null;
  const votes = new Map<string, number>();
  for (const peer of peers) {
    const said = peer.classes[peer.answer];
    votes.set(said, (votes.get(said) ?? 0) + 1);
  }
  const top = Math.max(...votes.values());
  return c.classes.flatMap((cls, i) => (votes.get(cls) === top ? [i] : []));
}

/** One number read off the context; null when the context has none. */
export type Feature = (c: Case) => number | null;

export const FEATURES = {
  'first-number': (c) => c.numbers[0] ?? null,
  'largest-number': (c) => (c.numbers.length === 0 ? null : Math.max(...c.numbers)),
  'smallest-number': (c) => (c.numbers.length === 0 ? null : Math.min(...c.numbers)),
  'sentence-count': (c) => c.sentences.length,
} satisfies Record<string, Feature>;

/**
 * Cut points learned on the siblings, applied to this item. Yes/no items get one cut
 * (either side may be yes), score items two (levels low to high or high to low, the
 * middle band possibly empty). Cuts sit below, between or above the siblings' distinct
 * values (midway between two). Every placement and direction that gets the most
 * siblings right is a learned rule; the item is answered with what each of them says,
 * so equally good rules share the credit. Null when the item has no value or no
 * sibling has one.
 */
export function learnedCuts(feature: Feature, c: Case, others: readonly Case[]): Prediction {
  const x = feature(c);
  if (x === null) return null;
  const train = others.flatMap((o) => {
    const v = feature(o);
    return v === null ? [] : [{ v, label: o.answer }];
  });
  if (train.length === 0) return null;
  const labels = c.classes.length;
  const values = [...new Set(train.map((t) => t.v))].sort((a, b) => a - b);
  // below[l][p]: siblings labelled l whose value is below cut position p (p = 0 … values.length).
  const below = Array.from({ length: labels }, () => new Array<number>(values.length + 1).fill(0));
  for (const t of train) {
    const at = values.indexOf(t.v);
    for (let p = at + 1; p <= values.length; p++) below[t.label][p]++;
  }
  const total = (l: number) => below[l][values.length];
  const threshold = (p: number) => (p === 0 ? -Infinity : p === values.length ? Infinity : (values[p - 1] + values[p]) / 2);
  const side = (p: number) => (x > threshold(p) ? 1 : 0);

  let best = -1;
  const said = new Set<number>();
  const consider = (right: number, label: number) => {
    if (right > best) {
      best = right;
      said.clear();
    }
    if (right === best) said.add(label);
  };
  for (let p = 0; p <= values.length; p++) {
    if (labels === 2) {
      for (const [under, over] of [
        [0, 1],
        [1, 0],
      ]) {
        consider(below[under][p] + total(over) - below[over][p], side(p) ? over : under);
      }
      continue;
    }
    for (let q = p; q <= values.length; q++) {
      for (const [lo, mid, hi] of [
        [0, 1, 2],
        [2, 1, 0],
      ]) {
        const right = below[lo][p] + below[mid][q] - below[mid][p] + total(hi) - below[hi][q];
        consider(right, [lo, mid, hi][side(p) + side(q)]);
      }
    }
  }
  return [...said].sort((a, b) => a - b);
}
