import type { Answer, Question, Questions } from '../engine.js';
import type { LibraryAnswer, LibraryQuestion } from './runtime.js';

/**
 * Our questions in node-llama-cpp's decision shape, and its answers back.
 *
 * - choice: the library keys options by object key and presents them in key
 *   order, which JavaScript puts integer-like keys ("2025") first; so options get
 *   positional keys and travel as their descriptions, in our order.
 * - noul: the library always presents Yes before No. A No-first question (the
 *   stress check's reversed order) is asked as a two-option choice with the same
 *   wording, so that only the order differs between the two asks.
 */
export function toLibrary(question: Question): LibraryQuestion {
  switch (question.type) {
    case 'noul': {
      const { yes, no } = noulWording(question.criteria);
      if (noFirst(question.criteria)) return { type: 'choice', instruction: question.instructions, criteria: { no, yes } };
      return { type: 'noul', instruction: question.instructions, criteria: { true: yes, false: no } };
    }
    case 'choice':
      return {
        type: 'choice',
        instruction: question.instructions,
        criteria: Object.fromEntries(
          question.criteria.map(({ label, description }, i) => [optionKey(i), description ? `${label}: ${description}` : label]),
        ),
      };
    case 'score':
      return { type: 'score', instruction: question.instructions, criteria: [...question.criteria] };
  }
}

export function fromLibrary(question: Question, answer: LibraryAnswer | undefined): Answer | undefined {
  if (!answer) return undefined;
  switch (question.type) {
    case 'noul':
      if (answer.type === 'noul') return { type: 'noul', yes: answer.value };
      if (answer.type === 'choice') return { type: 'noul', yes: answer.probabilities.yes };
      return undefined;
    case 'choice':
      if (answer.type !== 'choice') return undefined;
      return {
        type: 'choice',
        probabilities: Object.fromEntries(question.criteria.map(({ label }, i) => [label, answer.probabilities[optionKey(i)]])),
      };
    case 'score':
      return answer.type === 'score' ? { type: 'score', probabilities: [...answer.probabilities] } : undefined;
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
