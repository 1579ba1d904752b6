import type { DecisionRequest } from '../contract/decision.js';
import { inCanonicalOrder } from './orders.js';

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

/**
 * The question follows its task on the same line, without a "Question:" header of
 * its own: engines put their own header in front (node-llama-cpp's "Question: …",
 * the chat prompt's "Question:" section), and a second one inside would read as two
 * questions.
 */
export function mainInstructions(request: DecisionRequest): string {
  const task = {
    choice: 'Given the text, decide which of the options best answers this question',
    noul: 'Given the text, decide whether the answer to this question is yes or no',
    score: 'Given the text, decide which of the levels best answers this question',
  }[request.mode];
  return `${task}: ${request.question}\n\n${GROUNDING}`;
}

/** What kind of answer is wanted; the probe judges facts for that answer, not in general. */
function answerSpace(request: DecisionRequest): string {
  switch (request.mode) {
    case 'choice':
      // In the order the main question shows them (orders.ts), so the caller's order moves neither.
      return `The answer is one of these options: ${quoteAll(inCanonicalOrder(request.options, request.options))}.`;
    case 'noul':
      return 'The answer is yes or no.';
    case 'score':
      return `The answer is one of these levels, from low to high: ${quoteAll(request.levels)}.`;
  }
}

export function sufficiencyInstructions(request: DecisionRequest): string {
  return [
    `Does the text contain enough facts to answer this question with confidence: ${request.question}\n${answerSpace(request)}`,
    'Answer yes only if the text states the facts the answer depends on, so that a ' +
      'careful reader would reach the answer without guessing. Answer no if the answer ' +
      'would rest on assumptions, on general knowledge or on facts the text leaves out. ' +
      'Judge only whether the facts are there, not which answer they point to.',
  ].join('\n\n');
}

function quoteAll(labels: readonly string[]): string {
  return labels.map((label) => `"${label}"`).join(', ');
}
