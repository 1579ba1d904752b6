import type { Answer, Question, Questions } from '../engine.js';
import type { LibraryAnswer, LibraryQuestion } from './runtime.js';

/**
 * Our questions in node-llama-cpp's decision shape, and its answers back. Every
 * question is asked as the library's `choice`: one template ("Reply the letters of
 * the best answer:"), answers lettered A, B, C… in the order we present them. So:
 *
 * - the order is the presentation alone: a reversed question swaps which letter
 *   stands for which answer (the library's own yes/no question always puts Yes on
 *   the same token, moving only its line; its score question numbers the levels,
 *   and digits read as an order even when the levels are shown high to low);
 * - both orders of a question are worded alike, which debiasing relies on;
 * - options travel under positional keys and as their texts, since the library
 *   presents them in object-key order, which puts integer-like keys ("2025") first.
 */
export function toLibrary(question: Question): LibraryQuestion {
  return { type: 'choice', instruction: question.instructions, criteria: Object.fromEntries(texts(question).map((text, i) => [optionKey(i), text])) };
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

export function fromLibrary(question: Question, answer: LibraryAnswer | undefined): Answer | undefined {
  if (answer?.type !== 'choice') return undefined;
  const p = texts(question).map((_, i) => answer.probabilities[optionKey(i)]);
  if (p.some((x) => typeof x !== 'number')) return undefined;
  switch (question.type) {
    case 'noul':
      return { type: 'noul', yes: noFirst(question.criteria) ? p[1] : p[0] };
    case 'choice':
      return { type: 'choice', probabilities: Object.fromEntries(question.criteria.map(({ label }, i) => [label, p[i]])) };
    case 'score':
      return { type: 'score', probabilities: p };
  }
}

export function toLibraryQuestions(questions: Questions): Record<string, LibraryQuestion> {
  return Object.fromEntries(Object.entries(questions).map(([name, q]) => [name, toLibrary(q)]));
}

/** Never integer-like, so object order is insertion order. */
const optionKey = (i: number) => `option-${i + 1}`;

function noFirst(criteria: { true?: unknown; false?: unknown } | undefined): boolean {
  return criteria !== undefined && Object.keys(criteria)[0] === 'false';
}

/** The library's own wording for yes/no with optional criteria. */
function noulWording(criteria: { true?: string | null; false?: string | null } | undefined) {
  const yes = criteria?.true?.trim() || '';
  const no = criteria?.false?.trim() || '';
  return {
    yes: !yes ? 'Yes' : yes === 'Yes' ? yes : `Yes. ${yes}`,
    no: !no ? 'No' : no === 'No' ? no : `No. ${no}`,
  };
}
