import { type Engine, EngineError, type Question } from '../engine/engine.js';
import { mapBounded } from './bounded.js';
import { average, type Debias, ordersFor, readingName } from './debias.js';
import { answerCount, presented, readPresented } from './orders.js';
import type { Reading } from './outcome.js';
import { DEFAULT_CONCURRENCY } from './run.js';
import { calibrated, type Temperatures } from './temperature.js';

/** A caller's question as the engine is asked it, and the labels its reading carries. */
export interface OwnQuestion {
  question: Question;
  labels: readonly string[];
}

export interface EachRead {
  /** A reading per question the engine answered; one it could not answer is left out. */
  readings: Map<string, Reading>;
  /** What left each unanswered question out. */
  unanswered: Map<string, EngineError>;
  /** Summed over the answered questions; null when one of them did not report. */
  inputTokens: number | null;
}

/**
 * Each question of one state read by the engine: one reading per question, asked in
 * every order `debias` calls for (as questions of one engine call) and averaged back
 * into the question's own order, then its mode's temperature applied. Questions are
 * asked one engine call each, at most `concurrency` at once, so that one the engine
 * answers unusably (`bad_response`) is only that question left unanswered; any other
 * failure (busy, unavailable, the deadline) is the engine's, fails them all and stops
 * the rest.
 */
export async function askEach(
  state: string,
  questions: ReadonlyMap<string, OwnQuestion>,
  engine: Engine,
  options: { signal: AbortSignal; debias?: Debias; temperatures?: Temperatures; concurrency?: number },
): Promise<EachRead> {
  const entries = [...questions];
  const asked = await mapBounded(
    entries,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async ([name, own], signal): Promise<OneRead> => {
      const orders = ordersFor(answerCount(own.question), options.debias ?? 'none');
      const inOrders = Object.fromEntries(orders.map((order, j) => [readingName('q', j), presented(own.question, order)]));
      try {
        const reply = await engine.ask(state, inOrders, signal);
        const readings = orders.map((order, j) => readPresented(own.question, own.labels, name, reply.answers[readingName('q', j)], order));
        return { name, reading: calibrated(average(readings), options.temperatures ?? {}), inputTokens: reply.inputTokens };
      } catch (error) {
        if (error instanceof EngineError && error.kind === 'bad_response' && !signal.aborted) return { name, error };
        throw error;
      }
    },
    options.signal,
  );

  const read: EachRead = { readings: new Map(), unanswered: new Map(), inputTokens: 0 };
  for (const one of asked) {
    if (one.error) {
      read.unanswered.set(one.name, one.error);
      continue;
    }
    read.readings.set(one.name, one.reading);
    read.inputTokens = read.inputTokens === null || one.inputTokens === null ? null : read.inputTokens + one.inputTokens;
  }
  return read;
}

type OneRead = { name: string; error: EngineError } | { name: string; error?: undefined; reading: Reading; inputTokens: number | null };
