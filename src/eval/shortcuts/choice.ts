import { numbersIn, wordsOf, type Case } from './reading.js';

/**
 * The rules that answer a choice item from the look of its options: where they
 * stand, how long they are, how often the context names them, what numbers sit next
 * to them. Each returns the options it picks (several on a tie), or null when it
 * cannot apply (it abstains, and the item scores chance).
 */

export type Prediction = number[] | null;

/** The options holding the extreme of `values` (null values take no part); null when fewer than `min` take part. */
function extreme(values: readonly (number | null)[], pick: 'max' | 'min', min = 1): Prediction {
  const known = values.flatMap((v, i) => (v === null ? [] : [{ v, i }]));
  if (known.length < min) return null;
  const best = pick === 'max' ? Math.max(...known.map((k) => k.v)) : Math.min(...known.map((k) => k.v));
  return known.filter((k) => k.v === best).map((k) => k.i);
}

/**
 * The options holding the second value from one end: the second distinct value, so
 * options tied on the extreme all count as the extreme. Null when fewer than 3
 * options have a number, or when they share fewer than 2 distinct values.
 */
function second(values: readonly (number | null)[], from: 'low' | 'high'): Prediction {
  const known = values.flatMap((v, i) => (v === null ? [] : [{ v, i }]));
  if (known.length < 3) return null;
  const distinct = [...new Set(known.map((k) => k.v))].sort((a, b) => (from === 'low' ? a - b : b - a));
  if (distinct.length < 2) return null;
  return known.filter((k) => k.v === distinct[1]).map((k) => k.i);
}

const lower = (s: string) => s.toLowerCase();

/**
 * An option's key, what stands for it in the context: its full text when the context
 * holds it, else its longest word (four letters or more; the first of equals) that no
 * other option's text contains. Null when it has neither.
 */
export function keyOf(c: Case, index: number): string | null {
  const text = lower(c.classes[index]);
  if (lower(c.item.context).includes(text)) return text;
  const others = c.classes.filter((_, i) => i !== index).map(lower);
  const own = wordsOf(text).filter((w) => !others.some((o) => o.includes(w)));
  if (own.length === 0) return null;
  const length = (word: string) => [...word].length;
  return own.reduce((best, w) => (length(w) > length(best) ? w : best));
}

/** How many sentences of the context name each option (null: the option has no key). */
export function mentionCounts(c: Case): (number | null)[] {
  return c.classes.map((_, i) => {
    const key = keyOf(c, i);
    return key === null ? null : c.sentences.filter((s) => lower(s).includes(key)).length;
  });
}

/** An option's number: the first in its text, else the first in the first sentence that names it. */
export function optionNumbers(c: Case): (number | null)[] {
  return c.classes.map((option, i) => {
    const own = numbersIn(option);
    if (own.length > 0) return own[0];
    const key = keyOf(c, i);
    const sentence = key === null ? undefined : c.sentences.find((s) => lower(s).includes(key));
    return sentence === undefined ? null : (numbersIn(sentence)[0] ?? null);
  });
}

/** How many of an option's words (four letters or more) the question or context uses. */
function overlaps(c: Case): number[] {
  const seen = new Set(wordsOf(`${c.item.question} ${c.item.context}`));
  return c.classes.map((option) => wordsOf(option).filter((w) => seen.has(w)).length);
}

const lengths = (c: Case) => c.classes.map((o) => [...o].length);

export const CHOICE_RULES = {
  first: () => [0],
  last: (c: Case) => [c.classes.length - 1],
  // With two options there is no interior: both are "in the middle", which is chance.
  middle: (c: Case) => (c.classes.length === 2 ? [0, 1] : c.classes.slice(1, -1).map((_, i) => i + 1)),
  longest: (c: Case) => extreme(lengths(c), 'max'),
  shortest: (c: Case) => extreme(lengths(c), 'min'),
  // A count compares options: with fewer than two keyed options there is nothing to compare.
  'most-mentioned': (c: Case) => extreme(mentionCounts(c), 'max', 2),
  'least-mentioned': (c: Case) => extreme(mentionCounts(c), 'min', 2),
  'most-overlap': (c: Case) => extreme(overlaps(c), 'max'),
  'lowest-number': (c: Case) => extreme(optionNumbers(c), 'min', 2),
  'second-lowest-number': (c: Case) => second(optionNumbers(c), 'low'),
  'highest-number': (c: Case) => extreme(optionNumbers(c), 'max', 2),
  'second-highest-number': (c: Case) => second(optionNumbers(c), 'high'),
} satisfies Record<string, (c: Case) => Prediction>;
