import { type Answer, EngineError, type Question } from '../engine/engine.js';
import type { Reading } from './outcome.js';

/**
 * Any question — a decision's main question or a System One caller's — asked with its
 * answers in another order, and its answer read back into the question's own order.
 *
 * A presentation order gives, for each place, the index (in the question's own order)
 * of the answer shown there. Noul's two answers are yes (0) and no (1).
 */
export type Order = readonly number[];

export function identityOrder(k: number): Order {
  return [...Array(k).keys()];
}

export function reversedOrder(k: number): Order {
  return reversedOf(identityOrder(k));
}

/** `order` last to first. */
export const reversedOf = (order: Order): Order => [...order].reverse();

/**
 * Where the answers of a list stand when shown in the canonical order, the labels
 * sorted (by UTF-16 code units, so every machine and locale sorts alike): what the
 * caller's own order cannot change. Labels are distinct, so the order is total.
 */
export function canonicalOrder(labels: readonly string[]): Order {
  return [...labels.keys()].sort((a, b) => (labels[a] < labels[b] ? -1 : labels[a] > labels[b] ? 1 : 0));
}

/** `values`, given in the order of `labels`, put in the labels' canonical order. */
export function inCanonicalOrder<T>(labels: readonly string[], values: readonly T[]): T[] {
  return canonicalOrder(labels).map((i) => values[i]);
}

/**
 * The order a question's answers are shown in before any debiasing reorders them. A
 * choice's options are a set: shown in their canonical order, the question the engine
 * reads is the same whatever order the caller listed them in, so no order of theirs
 * can move its answer. A scale's levels (low to high) and yes/no keep their own order,
 * which is part of what they say.
 */
export function shownOrder(question: Question): Order {
  return question.type === 'choice' ? canonicalOrder(question.criteria.map(({ label }) => label)) : identityOrder(answerCount(question));
}

/** How many answers a question offers. */
export function answerCount(question: Question): number {
  return question.type === 'noul' ? 2 : question.criteria.length;
}

/** `question` with its answers presented in `order`; the instructions are the same in every order. */
export function presented(question: Question, order: Order): Question {
  switch (question.type) {
    case 'choice':
      return { ...question, criteria: order.map((i) => question.criteria[i]) };
    case 'score':
      return { ...question, criteria: order.map((i) => question.criteria[i]) };
    case 'noul': {
      // Presentation order is the key order of `criteria` (engine.ts): Yes first, or No first.
      const yes = question.criteria?.true ?? null;
      const no = question.criteria?.false ?? null;
      return { ...question, criteria: order[0] === 0 ? { true: yes, false: no } : { false: no, true: yes } };
    }
  }
}

/**
 * The answer to `presented(question, order)`, named `name`, as a reading in the
 * question's own order, labelled `labels`. Choice answers are keyed by label, so order
 * needs no mapping; score answers are indexed like the criteria presented, so each is
 * put back at its level's place.
 */
export function readPresented(
  question: Question,
  labels: readonly string[],
  name: string,
  answer: Answer | undefined,
  order: Order,
): Reading {
  switch (question.type) {
    case 'noul':
      return { mode: 'noul', yes: readYes(name, answer) };
    case 'choice': {
      if (answer?.type !== 'choice') throw unusable(name, 'is not a choice answer');
      const { probabilities } = answer;
      const p = question.criteria.map(({ label }) => {
        if (!Object.hasOwn(probabilities, label)) throw unusable(name, `has no probability for "${label}"`);
        return probabilities[label];
      });
      return { mode: 'choice', labels, p: normalise(name, p) };
    }
    case 'score': {
      if (answer?.type !== 'score') throw unusable(name, 'is not a score answer');
      const k = question.criteria.length;
      if (answer.probabilities.length !== k) throw unusable(name, `has ${answer.probabilities.length} probabilities for ${k} levels`);
      const p: number[] = new Array(k);
      order.forEach((level, place) => (p[level] = answer.probabilities[place]));
      return { mode: 'score', labels, p: normalise(name, p) };
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
