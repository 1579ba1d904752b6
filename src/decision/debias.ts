import type { DecisionRequest } from '../contract/decision.js';
import type { Answer, Questions } from '../engine/engine.js';
import type { Reading } from './outcome.js';
import { identityOrder, type Order, readYes, reversedOf, reversedOrder } from './orders.js';
import { MAIN, mainQuestion, readMain, SUFFICIENCY, sufficiencyQuestion } from './questions.js';
import type { Debias } from '../contract/debias.js';

/**
 * Order debiasing. A model reading options in one order favours some places (the
 * first, the last) and some labels whatever they say; the same question asked with
 * the answers in other orders, and the readings averaged in request order, cancels
 * what belongs to the place rather than to the answer. Every order is a rearrangement
 * of the shown one (orders.ts: a choice's options sorted, so the caller's order moves
 * nothing; levels low to high; Yes first).
 *
 * - `none`: one reading, in the shown order.
 * - `reverse`: the shown order and its reversal (noul: Yes first and No first). Twice
 *   the engine's input, once the time: the readings are questions of the same call.
 * - `cyclic`: every cyclic shift of the shown options or levels, so each stands in every
 *   place once (k readings; for two answers the same as `reverse`).
 *
 * The sufficiency probe, a yes/no question, is asked in both orders whenever
 * debiasing is on, and read as the surer yes of the two (`readSufficiency`).
 */

/**
 * Unless the operator chooses: on the local engine readings cost only local compute,
 * so both orders; on a remote engine, where a provider may bill every input token,
 * one reading.
 */
export function defaultDebias(engineName: string): Debias {
  return engineName === 'local' ? 'reverse' : 'none';
}

/**
 * The orders a question is asked in, each a rearrangement of `shown` (the order it is
 * shown in before debiasing, orders.ts): `shown` itself first, then its reversal or
 * its cyclic shifts.
 */
export function ordersFor(shown: Order, debias: Debias): Order[] {
  const k = shown.length;
  const relative =
    debias === 'none' ? [identityOrder(k)] : debias === 'reverse' || k === 2 ? [identityOrder(k), reversedOrder(k)] : cyclicShifts(k);
  return relative.map((order) => order.map((place) => shown[place]));
}

function cyclicShifts(k: number): Order[] {
  const identity = identityOrder(k);
  return identity.map((shift) => identity.map((i) => (i + shift) % k));
}

/** The name of reading `j` of a question: the first keeps the plain name. */
export const readingName = (base: string, j: number): string => (j === 0 ? base : `${base}-${j}`);

/** Where the reversal of the first order is among `orders`, or -1: a stress decision's reversed check reuses that reading. */
export function reversedReading(orders: readonly Order[]): number {
  const reversed = reversedOf(orders[0]);
  return orders.findIndex((order) => order.every((i, place) => i === reversed[place]));
}

/** The main question once per order, as questions of one engine call. */
export function mainQuestions(request: DecisionRequest, orders: readonly Order[]): Questions {
  return Object.fromEntries(orders.map((order, j) => [readingName(MAIN, j), mainQuestion(request, order)]));
}

/** The readings of every order, averaged in request order. */
export function readAveraged(request: DecisionRequest, answers: Record<string, Answer>, orders: readonly Order[]): Reading {
  const readings = orders.map((order, j) => readMain(request, readingName(MAIN, j), answers[readingName(MAIN, j)], order));
  return average(readings);
}

/**
 * The smallest share of the next-token probability that a question's readings (one
 * per order) put on their labels (engine.ts `labelMass`); null when the engine does
 * not say for every one of them.
 */
export function smallestLabelMass(readings: readonly (Answer | undefined)[]): number | null {
  const masses = readings.map((answer) => answer?.labelMass);
  return masses.every((m) => m !== undefined) ? Math.min(...(masses as number[])) : null;
}

export function average(readings: readonly Reading[]): Reading {
  const first = readings[0];
  if (first.mode === 'noul') return { mode: 'noul', yes: mean(readings.map((r) => (r.mode === 'noul' ? r.yes : 0))) };
  const p = first.p.map((_, i) => mean(readings.map((r) => (r.mode === 'noul' ? 0 : r.p[i]))));
  return { mode: first.mode, labels: first.labels, p };
}

export function sufficiencyQuestions(request: DecisionRequest, debias: Debias): Questions {
  const questions: Questions = { [SUFFICIENCY]: sufficiencyQuestion(request) };
  if (debias !== 'none') questions[readingName(SUFFICIENCY, 1)] = sufficiencyQuestion(request, true);
  return questions;
}

/**
 * The probability that the context suffices: with debiasing, the larger of the probe's
 * Yes-first and No-first readings, so the context is sent back for more facts only when
 * the probe says no whichever answer it is shown first. A model that follows the place
 * an answer is shown at says yes in one order and no in the other; their mean sits at
 * 0.5 whatever the context holds and turned `needs-context` into a coin flip (54–67 % of
 * complete contexts on both real models), where the larger reading sends back 0–7 %
 * with no worse ranking of contexts (docs/eval.md, "The probe under debiasing"). A
 * probe that reads its facts says the same in both orders, and the two agree.
 */
export function readSufficiency(answers: Record<string, Answer>, debias: Debias): number {
  const names = debias === 'none' ? [SUFFICIENCY] : [SUFFICIENCY, readingName(SUFFICIENCY, 1)];
  return Math.max(...names.map((name) => readYes(name, answers[name])));
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
