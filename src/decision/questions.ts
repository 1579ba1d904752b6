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
 * The main question, in request order or reversed: options (choice) or levels
 * (score) presented last to first, No before Yes (noul). The instructions are the
 * same either way.
 */
export function mainQuestion(request: DecisionRequest, reversed = false): Question {
  const instructions = mainInstructions(request);
  switch (request.mode) {
    case 'choice': {
      const options = reversed ? [...request.options].reverse() : request.options;
      return { type: 'choice', instructions, criteria: options.map((label) => ({ label, description: null })) };
    }
    case 'noul':
      return { type: 'noul', instructions, criteria: reversed ? NO_YES : YES_NO };
    case 'score':
      return { type: 'score', instructions, criteria: reversed ? [...request.levels].reverse() : [...request.levels] };
  }
}

export function sufficiencyQuestion(request: DecisionRequest): Question {
  return { type: 'noul', instructions: sufficiencyInstructions(request), criteria: YES_NO };
}

/** The questions of the call on the full context; `reversed` only for stress. */
export function baseQuestions(request: DecisionRequest): Questions {
  const questions: Questions = { [MAIN]: mainQuestion(request), [SUFFICIENCY]: sufficiencyQuestion(request) };
  if (request.depth === 'stress') questions[REVERSED] = mainQuestion(request, true);
  return questions;
}

/**
 * Reads a main answer back into request order. Choice answers are keyed by label,
 * so reversal needs no mapping; score answers are indexed like the criteria, so a
 * reversed one is read back to front.
 */
export function readMain(request: DecisionRequest, name: string, answer: Answer | undefined, reversed = false): Reading {
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
      const p = reversed ? [...answer.probabilities].reverse() : answer.probabilities;
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
