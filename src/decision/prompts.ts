import type { DecisionRequest } from '../contract/decision.js';

/**
 * Instructions for the decision model. The engine shows them with the state (the
 * context) and the answers to choose from (the question's criteria).
 *
 * The main instructions never list the options or levels and never say in which
 * order they come: the order is carried by the criteria alone, so the `reversed`
 * stress check asks the very same text with only the presentation order changed.
 */

const GROUNDING =
  'Base the decision on the facts the text states. Use general knowledge only to ' +
  'understand those facts, not to supply facts the text does not give.';

export function mainInstructions(request: DecisionRequest): string {
  const task = {
    choice: 'Decide which of the options best answers the question below, given the text.',
    noul: 'Decide whether the answer to the question below is yes or no, given the text.',
    score: 'Decide which of the levels best answers the question below, given the text.',
  }[request.mode];
  return `${task}\n\nQuestion: ${request.question}\n\n${GROUNDING}`;
}

/** What kind of answer is wanted; the probe judges facts for that answer, not in general. */
function answerSpace(request: DecisionRequest): string {
  switch (request.mode) {
    case 'choice':
      return `The answer is one of these options: ${quoteAll(request.options)}.`;
    case 'noul':
      return 'The answer is yes or no.';
    case 'score':
      return `The answer is one of these levels, from low to high: ${quoteAll(request.levels)}.`;
  }
}

export function sufficiencyInstructions(request: DecisionRequest): string {
  return [
    'Does the text contain enough facts to answer the question below with confidence?',
    `Question: ${request.question}\n${answerSpace(request)}`,
    'Answer yes only if the text states the facts the answer depends on, so that a ' +
      'careful reader would reach the answer without guessing. Answer no if the answer ' +
      'would rest on assumptions, on general knowledge or on facts the text leaves out. ' +
      'Judge only whether the facts are there, not which answer they point to.',
  ].join('\n\n');
}

function quoteAll(labels: readonly string[]): string {
  return labels.map((label) => `"${label}"`).join(', ');
}
