import type { Answer, Question } from '../engine.js';

/**
 * A question as the local engine's prompt presents it (prompt.ts): its instruction
 * and its answers' texts, lettered A, B, C… in the order given. Every type is asked
 * this one way, so:
 *
 * - the order is the presentation alone: a reversed question swaps which letter
 *   stands for which answer (yes/no included: its No-first reading puts No under A);
 * - both orders of a question are worded alike, which debiasing relies on, and share
 *   everything before the first answer, which prefix reuse relies on;
 * - score levels are lettered, never numbered: digits would read as an order even
 *   when the levels are shown high to low.
 */
export interface LetteredQuestion {
  instruction: string;
  /** Answer texts in presentation order: the first gets A. */
  answers: string[];
}

export function lettered(question: Question): LetteredQuestion {
  return { instruction: question.instructions, answers: texts(question) };
}

/** The answers' texts in presentation order. */
function texts(question: Question): string[] {
  switch (question.type) {
    case 'noul': {
      const { yes, no } = noulWording(question.criteria);
      return noFirst(question.criteria) ? [no, yes] : [yes, no];
    }
    case 'choice':
      return question.criteria.map(({ label, description }) => (description ? `${label}: ${description}` : label));
    case 'score':
      return [...question.criteria];
  }
}

/** The answer to `question` from the probabilities of its letters, in presentation order. */
export function answerOf(question: Question, p: readonly number[]): Answer {
  switch (question.type) {
    case 'noul':
      return { type: 'noul', yes: noFirst(question.criteria) ? p[1] : p[0] };
    case 'choice':
      return { type: 'choice', probabilities: Object.fromEntries(question.criteria.map(({ label }, i) => [label, p[i]])) };
    case 'score':
      return { type: 'score', probabilities: [...p] };
  }
}

function noFirst(criteria: { true?: unknown; false?: unknown } | undefined): boolean {
  return criteria !== undefined && Object.keys(criteria)[0] === 'false';
}

/** Yes and No, with the criteria's own words after them when given. */
function noulWording(criteria: { true?: string | null; false?: string | null } | undefined) {
  const yes = criteria?.true?.trim() || '';
  const no = criteria?.false?.trim() || '';
  return {
    yes: !yes ? 'Yes' : yes === 'Yes' ? yes : `Yes. ${yes}`,
    no: !no ? 'No' : no === 'No' ? no : `No. ${no}`,
  };
}
