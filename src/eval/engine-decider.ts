import { runDecision } from '../decision/run.js';
import type { Scalings } from '../decision/scaling.js';
import type { Engine } from '../engine/engine.js';
import { engineFailure } from '../service/refusals.js';
import type { Decider } from './run.js';
import type { Debias } from '../contract/debias.js';

/**
 * Decisions made in this process by the decision layer the service uses, without a
 * ledger: each with the service's deadline, its failures under the API's codes.
 */
export function engineDecider(engine: Engine, timeoutMs: number, debias: Debias, scalings: Scalings = {}): Decider {
  return async ({ request, presentation }) => {
    try {
      return await runDecision(request, engine, { signal: AbortSignal.timeout(timeoutMs), debias, scalings, presentation });
    } catch (error) {
      throw engineFailure(error);
    }
  };
}
