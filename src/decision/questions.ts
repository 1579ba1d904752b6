import type { DecisionRequest } from '../contract/decision.js';
import type { Answer, Question } from '../engine/engine.js';
import type { Reading } from './outcome.js';
import { answerCount, identityOrder, type Order, presented, readPresented } from './orders.js';
import { mainInstructions, sufficiencyInstructions } from './prompts.js';

export { readYes } from './orders.js';

/** Names of the questions asked of one state. */
export const MAIN = 'main';
export const SUFFICIENCY = 'sufficiency';
export const REVERSED = 'reversed';

/** The main question's own wording: Yes first for noul. */
const YES_NO = { true: 'Yes', false: 'No' };
const NO_YES = { false: 'No', true: 'Yes' };

/** The main question in request order. */
function ownQuestion(request: DecisionRequest): Question {
  const instructions = mainInstructions(request);
  switch (request.mode) {
    case 'choice':
      return { type: 'choice', instructions, criteria: request.options.map((label) => ({ label, description: null })) };
    case 'noul':
      return { type: 'noul', instructions, criteria: YES_NO };
    case 'score':
      return { type: 'score', instructions, criteria: [...request.levels] };
  }
}

/**
 * The main question with its answers presented in `order` (request order by default).
 * The instructions are the same in every order.
 */
export function mainQuestion(request: DecisionRequest, order?: Order): Question {
  const own = ownQuestion(request);
  return presented(own, order ?? identityOrder(answerCount(own)));
}

/** The sufficiency probe, a yes/no question; `noFirst` presents No before Yes. */
export function sufficiencyQuestion(request: DecisionRequest, noFirst = false): Question {
  return { type: 'noul', instructions: sufficiencyInstructions(request), criteria: noFirst ? NO_YES : YES_NO };
}

/** Reads a main answer asked in `order` (request order by default) back into request order (orders.ts). */
export function readMain(request: DecisionRequest, name: string, answer: Answer | undefined, order?: Order): Reading {
  const labels = request.mode === 'choice' ? request.options : request.mode === 'score' ? request.levels : [];
  const own = ownQuestion(request);
  return readPresented(own, labels, name, answer, order ?? identityOrder(answerCount(own)));
}
