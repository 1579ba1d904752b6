import { EngineError } from '../engine.js';
import { combineGroups, groupsOf } from '../grouped.js';
import { MOST_LETTERS, type PromptLayout, type Reading, type TokenCache } from './prompt.js';
import type { LetteredQuestion } from './questions.js';

/**
 * The readings of one question, and how their letter distributions make its answer.
 *
 * Up to MOST_LETTERS answers, one lettered reading, the answer its distribution. A
 * question of more (a choice of up to 255 options) is read in two steps that multiply
 * exactly, as the openai engine reads them (../grouped.ts): P(g) from one reading
 * that shows every answer under its group's letter, P(i | g) from one lettered
 * reading per group of its answers alone, P(i) = P(g) · P(i | g). Every factor is
 * read off the model's logits, none assumed, and the product sums to 1. All of them
 * begin with the question and the state, so the prefix tree evaluates those once.
 */
export interface QuestionReadings {
  readings: Reading[];
  /** The answers' probabilities in presentation order, from each reading's letter distribution in turn. */
  combine(p: readonly (readonly number[])[]): number[];
}

export function readingsOf(
  layout: PromptLayout,
  state: string,
  question: LetteredQuestion,
  tokens: TokenCache,
  name: string,
): QuestionReadings {
  const n = question.answers.length;
  if (n <= MOST_LETTERS) return { readings: [layout.reading(state, question, tokens)], combine: ([p]) => [...p] };
  if (n > MOST_LETTERS ** 2) {
    throw new EngineError(
      'bad_response',
      `the local model reads at most ${MOST_LETTERS ** 2} answers to a question, ${MOST_LETTERS} a reading; "${name}" has ${n}`,
    );
  }
  const groups = groupsOf(n, MOST_LETTERS);
  const within = groups.map((members) => layout.reading(state, { ...question, answers: members.map((i) => question.answers[i]) }, tokens));
  return {
    readings: [layout.groupReading(state, question, groups, tokens), ...within],
    combine: ([ofGroup, ...withinGroup]) => combineGroups(groups, ofGroup, withinGroup),
  };
}
