import { type AskContext, type Engine, EngineError, type Question } from '../engine/engine.js';
import { mapBounded } from './bounded.js';
import { average, ordersFor, readingName, smallestLabelMass } from './debias.js';
import { type Order, presented, readPresented, shownOrder } from './orders.js';
import type { Reading } from './outcome.js';
import { LOW_LABEL_MASS } from '../contract/wording.js';
import { DEFAULT_CONCURRENCY } from './run.js';
import { calibrated, type Scalings } from './scaling.js';
import type { Debias } from '../contract/debias.js';

/** A caller's question as the engine is asked it, and the labels its reading carries. */
export interface OwnQuestion {
  question: Question;
  labels: readonly string[];
}

export interface EachRead {
  /** A reading per question, every one of them. */
  readings: Map<string, Reading>;
  /** Summed over the questions. */
  inputTokens: number;
}

/**
 * The most readings of one question. Cyclic debiasing asks every shift of the answers,
 * k readings, which for a choice of 255 options would be 255 prompts for one paid
 * question; past this many, evenly spaced shifts stand for all of them, so each
 * answer is still read in as many places spread over the list.
 */
export const MOST_READINGS = 10;

/** The orders `question` is read in under `debias`, at most MOST_READINGS of them. */
export function readingOrders(question: Question, debias: Debias): Order[] {
  const orders = ordersFor(shownOrder(question), debias);
  if (orders.length <= MOST_READINGS) return orders;
  return Array.from({ length: MOST_READINGS }, (_, j) => orders[Math.floor((j * orders.length) / MOST_READINGS)]);
}

/** A question id as an error names it: whole unless it is very long (ids are the caller's, of any length). */
function named(id: string): string {
  return JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id);
}

/**
 * Each question of one state read by the engine: one reading per question, asked in
 * every order `debias` calls for (as questions of one engine call) and averaged back
 * into the question's own order, then its mode's temperature applied. Questions are
 * asked one engine call each, at most `concurrency` at once.
 *
 * Every question is answered or none is: the format promises one answer per question
 * (clients index answers by id), so the first failure of any question, an unusable
 * answer included, stops the others and is the request's. An unusable answer names
 * its question.
 */
export async function askEach(
  state: string,
  questions: ReadonlyMap<string, OwnQuestion>,
  engine: Engine,
  options: { signal: AbortSignal; debias?: Debias; scalings?: Scalings; concurrency?: number; call?: AskContext },
): Promise<EachRead> {
  const asked = await mapBounded(
    [...questions],
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async ([id, own], signal) => {
      const orders = readingOrders(own.question, options.debias ?? 'none');
      const inOrders = Object.fromEntries(orders.map((order, j) => [readingName('q', j), presented(own.question, order)]));
      try {
        const reply = await engine.ask(state, inOrders, signal, options.call);
        const answers = orders.map((_, j) => reply.answers[readingName('q', j)]);
        refuseLowMass(smallestLabelMass(answers));
        const readings = orders.map((order, j) => readPresented(own.question, own.labels, id, answers[j], order));
        return { id, reading: calibrated(average(readings), options.scalings ?? {}), inputTokens: reply.inputTokens };
      } catch (error) {
        if (error instanceof EngineError && error.kind === 'bad_response' && !signal.aborted) {
          throw new EngineError('bad_response', `question ${named(id)}: ${error.message}`);
        }
        throw error;
      }
    },
    options.signal,
  );

  const read: EachRead = { readings: new Map(), inputTokens: 0 };
  for (const one of asked) {
    read.readings.set(one.id, one.reading);
    read.inputTokens += one.inputTokens;
  }
  return read;
}

/**
 * The low-mass rule on the System One routes (contract/wording.ts `LOW_LABEL_MASS`): the
 * format's answer has no signal to say `unclear` with, so a question whose readings
 * put too little of the model's probability on its answers is refused (502, nothing
 * charged) rather than passed off as the renormalised rest.
 */
function refuseLowMass(smallest: number | null): void {
  if (smallest === null || smallest >= LOW_LABEL_MASS) return;
  throw new EngineError(
    'bad_response',
    `the model put only ${smallest.toFixed(3)} of its next-token probability on the answers (at least ${LOW_LABEL_MASS} needed): it was not answering the question`,
  );
}
