import type { ChoiceQuestion } from './engine.js';
import { MOST_LOGPROB_LABELS } from './labels.js';
import { renderGroupQuestion, renderQuestion, type RenderedQuestion } from './prompt.js';

/**
 * A choice of more options than one logprob reading can offer, read in two steps
 * that multiply exactly: which group holds the best option, P(g), read off one
 * prompt that shows every option under its group's letter; and which option within
 * each group, P(i | g), read off one prompt per group showing that group's options
 * alone. P(i) = P(g) · P(i | g) sums to 1 over all options, every factor a
 * distribution read straight from the model's logprobs (none guessed or assumed),
 * and no reading offers more than MOST_LOGPROB_LABELS labels. 255 options are 13
 * groups of 19 or 20: 14 calls, each showing at most 20 labels.
 *
 * Groups are consecutive runs of the options in presentation order, of sizes that
 * differ by at most one, so a reversed or shifted order (debiasing) makes other
 * groups, as it should.
 */

/**
 * The options' indices 0…n−1 in consecutive groups of at most `size`, sizes differing
 * by at most one. There must be no more groups than `size` either (n ≤ size²), since
 * the group question offers one label per group: 20 × 20 holds the format's 255.
 */
export function groupsOf(n: number, size = MOST_LOGPROB_LABELS): number[][] {
  const count = Math.ceil(n / size);
  if (count > size) throw new RangeError(`${n} options make ${count} groups of ${size}, more than one reading can offer`);
  const groups: number[][] = [];
  let next = 0;
  for (let g = 0; g < count; g++) {
    const take = Math.floor(n / count) + (g < n % count ? 1 : 0);
    groups.push(Array.from({ length: take }, (_, j) => next + j));
    next += take;
  }
  return groups;
}

/** The prompts of a grouped reading: the group question first, then one per group. */
export function groupedPrompts(state: string, question: ChoiceQuestion, groups: readonly (readonly number[])[]): RenderedQuestion[] {
  const within = groups.map((members) => renderQuestion(state, { ...question, criteria: members.map((i) => question.criteria[i]) }));
  return [renderGroupQuestion(state, question, groups), ...within];
}

/**
 * P(i) = P(g) · P(i | g) in presentation order, from the group question's
 * distribution over the groups and each group's distribution over its members.
 */
export function combineGroups(
  groups: readonly (readonly number[])[],
  ofGroup: readonly number[],
  withinGroup: readonly (readonly number[])[],
): number[] {
  const p: number[] = [];
  groups.forEach((members, g) => members.forEach((i, j) => (p[i] = ofGroup[g] * withinGroup[g][j])));
  return p;
}
