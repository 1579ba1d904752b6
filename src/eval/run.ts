import { DecideError } from '../client/errors.js';
import { ServiceError, type DecisionResult, type Signal, type Stress } from '../contract/index.js';
import type { Ask } from './plan.js';

/** What an evaluation reads of one decision, whichever way it was made. */
export interface Decided {
  result: DecisionResult;
  signal: Signal;
  contextSufficiency: number;
  /** The API's `labelMass`, when the engine says. */
  labelMass?: number | null;
  model: string;
  /** The main answer unrounded, in the asked request's order (noul: [yes, no]), when the decider has it. */
  distribution?: number[];
  /** A stress decision's checks (the API's `stress`). */
  stress?: Stress | null;
}

/** Makes one decision: in this process on the configured engine, or through a running service. */
export type Decider = (ask: Ask) => Promise<Decided>;

export type Outcome = { ok: true; decided: Decided } | { ok: false; code: string; message: string };

/**
 * Asks every request with at most `concurrency` under way. A failure with an API
 * code is an outcome, not an end: it is counted by its code, and the other requests
 * go on. Anything else (a refused key, a bug) stops the run and is thrown once the
 * requests under way have settled.
 */
export async function askAll(
  asks: readonly Ask[],
  decide: Decider,
  options: { concurrency: number; onSettled?: (done: number, failed: number) => void },
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  let next = 0;
  let failed = 0;
  let stop: { error: unknown } | null = null;
  const worker = async () => {
    while (next < asks.length && !stop) {
      const ask = asks[next++];
      let outcome: Outcome;
      try {
        outcome = { ok: true, decided: await decide(ask) };
      } catch (error) {
        const failure = failureOf(error);
        if (!failure) {
          stop ??= { error };
          return;
        }
        outcome = { ok: false, ...failure };
        failed++;
      }
      outcomes.set(ask.key, outcome);
      options.onSettled?.(outcomes.size, failed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, asks.length) }, worker));
  if (stop) throw (stop as { error: unknown }).error;
  return outcomes;
}

/** The API's error code of a failure (the client's own codes for a network failure); null for anything else. */
function failureOf(error: unknown): { code: string; message: string } | null {
  if (error instanceof ServiceError || error instanceof DecideError) return { code: error.code, message: error.message };
  return null;
}
