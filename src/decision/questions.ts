import type { DecisionRequest } from '../contract/decision.js';
import { type Answer, EngineError, type Question, type Questions } from '../engine/engine.js';
import type { Reading } from './outcome.js';
import { mainInstructions, sufficiencyInstructions } from './prompts.js';

/** Names of the questions asked of one state. */
export const MAIN = 'main';
export const SUFFICIENCY = 'sufficiency';
export const REVERSED = 'reversed';

/** Presentation order is the key order of `criteria` (engine.ts): Yes first, or No first. */
const YES_NO = { true: 'Yes', false: 'No' };
const NO_YES = { false: 'No', true: 'Yes' };

/**
 * A presentation order: for each place, the index (in request order) of the answer
 * shown there. Noul's two answers are yes (0) and no (1).
 */
export type Order = readonly number[];

/** The number of answers of a request's main question. */
export function answerCount(request: DecisionRequest): number {
  return request.mode === 'choice' ? request.options.length : request.mode === 'score' ? request.levels.length : 2;
}

export function identityOrder(k: number): Order {
  return [...Array(k).keys()];
}

export function reversedOrder(k: number): Order {
  return [...identityOrder(k)].reverse();
}

/** `true` and `false` stand for the reversed and the request order. */
function orderOf(request: DecisionRequest, order: Order | boolean): Order {
  if (typeof order !== 'boolean') return order;
  return order ? reversedOrder(answerCount(request)) : identityOrder(answerCount(request));
}

/**
 * The main question with its answers presented in `order` (request order by default;
 * `true`: reversed, options or levels last to first, No before Yes). The instructions
 * are the same in every order.
 */
export function mainQuestion(request: DecisionRequest, order: Order | boolean = false): Question {
  const instructions = mainInstructions(request);
  const placed = orderOf(request, order);
  switch (request.mode) {
    case 'choice':
      return { type: 'choice', instructions, criteria: placed.map((i) => ({ label: request.options[i], description: null })) };
    case 'noul':
      return { type: 'noul', instructions, criteria: placed[0] === 0 ? YES_NO : NO_YES };
    case 'score':
      return { type: 'score', instructions, criteria: placed.map((i) => request.levels[i]) };
  }
}

/** The sufficiency probe, a yes/no question; `noFirst` presents No before Yes. */
export function sufficiencyQuestion(request: DecisionRequest, noFirst = false): Question {
  return { type: 'noul', instructions: sufficiencyInstructions(request), criteria: noFirst ? NO_YES : YES_NO };
}

/**
 * Reads a main answer asked in `order` back into request order. Choice answers are
 * keyed by label, so order needs no mapping; score answers are indexed like the
 * criteria, so each is put back at its level's place.
 */
export function readMain(request: DecisionRequest, name: string, answer: Answer | undefined, order: Order | boolean = false): Reading {
  switch (request.mode) {
    case 'noul':
      return { mode: 'noul', yes: readYes(name, answer) };
    case 'choice': {
      if (answer?.type !== 'choice') throw unusable(name, 'is not a choice answer');
      const { probabilities } = answer;
      const p = request.options.map((option) => {
        if (!Object.hasOwn(probabilities, option)) throw unusable(name, `has no probability for "${option}"`);
        return probabilities[option];
      });
      return { mode: 'choice', labels: request.options, p: normalise(name, p) };
    }
    case 'score': {
      if (answer?.type !== 'score') throw unusable(name, 'is not a score answer');
      const k = request.levels.length;
      if (answer.probabilities.length !== k) throw unusable(name, `has ${answer.probabilities.length} probabilities for ${k} levels`);
      const placed = orderOf(request, order);
      const p: number[] = new Array(k);
      placed.forEach((level, place) => (p[level] = answer.probabilities[place]));
      return { mode: 'score', labels: request.levels, p: normalise(name, p) };
    }
  }
}

/** The probability of yes of a noul answer. */
export function readYes(name: string, answer: Answer | undefined): number {
  if (answer?.type !== 'noul') throw unusable(name, 'is not a yes/no answer');
  const [, yes] = normalise(name, [1 - answer.yes, answer.yes]);
  return yes;
}

/**
 * Engines promise normalised distributions; this guards the arithmetic against one
 * that is not (NaN, negatives, all zero) and absorbs floating-point drift.
 */
function normalise(name: string, p: readonly number[]): number[] {
  if (!p.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) {
    throw unusable(name, 'holds a value that is not a probability');
  }
  const sum = p.reduce((a, b) => a + b, 0);
  if (sum <= 0) throw unusable(name, 'has no probability mass');
  return p.map((x) => x / sum);
}

function unusable(name: string, problem: string): EngineError {
  return new EngineError('bad_response', `the engine's answer to "${name}" ${problem}`);
}
