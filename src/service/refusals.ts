import { ServiceError } from '../contract/index.js';
import { EngineError } from '../engine/engine.js';
import type { Limits, Refusal } from '../ledger/store.js';
import { secondsToMidnight } from './clock.js';
import type { Depth } from '../contract/decision.js';
import type { Allowance } from './allowance.js';

/** A refusal for want of free decisions: it carries the allowance as it leaves it, for the RateLimit headers beside it. */
export class AllowanceRefused extends ServiceError {
  constructor(
    message: string,
    readonly allowance: Allowance,
  ) {
    super('free_limit_reached', message, allowance.resetSeconds);
  }
}

/** The ledger's refusal as the contract words it. */
export function refusal(code: Refusal, depth: Depth, now: Date, limits: Limits, units = 1): ServiceError {
  if (code === 'key_revoked') return revokedKey();
  if (units > 1) return unitsRefusal(code, units, now, limits);
  switch (code) {
    case 'pass_required':
      return new ServiceError('pass_required', 'a stress decision costs 5 credits and needs a funded pass; the pass holds 0 credits');
    case 'insufficient_credits':
      return new ServiceError(
        'insufficient_credits',
        depth === 'stress'
          ? 'a stress decision costs 5 credits; the pass holds fewer'
          : `the free allowance of ${limits.freePerKey} decisions is used up today and the pass holds no credits`,
      );
    case 'free_limit_reached':
      return new AllowanceRefused(
        `the free allowance of ${limits.freePerKey} decisions a day is used up; it resets at the next UTC midnight, or fund the key's pass`,
        { limit: limits.freePerKey, remaining: 0, resetSeconds: secondsToMidnight(now) },
      );
    case 'rate_limited':
      return new ServiceError(
        'rate_limited',
        "the site's daily limit of free decisions is reached; it resets at the next UTC midnight",
        secondsToMidnight(now),
      );
  }
}

/** A key revoked since it was looked up: the answer any unknown key gets. */
export function revokedKey(): ServiceError {
  return new ServiceError('unauthorized', 'the API key is missing, unknown or revoked');
}

/** The refusal of several decisions paid together (the questions of a System One request). */
function unitsRefusal(code: Exclude<Refusal, 'key_revoked'>, units: number, now: Date, limits: Limits): ServiceError {
  const cost = `${units} questions cost ${units} decisions (1 each, from the free allowance of ${limits.freePerKey} a day, then 1 credit)`;
  switch (code) {
    case 'insufficient_credits':
    case 'pass_required':
      return new ServiceError(
        'insufficient_credits',
        `${cost}; what is left of today's free allowance and the pass's credits does not cover them`,
      );
    case 'free_limit_reached':
      // What is left may be short of the request's questions without being 0; the ledger's refusal does not say.
      return new AllowanceRefused(
        `${cost}; what is left of today's free allowance does not cover them. It resets at the next UTC midnight, or fund the key's pass`,
        { limit: limits.freePerKey, remaining: null, resetSeconds: secondsToMidnight(now) },
      );
    case 'rate_limited':
      return new ServiceError(
        'rate_limited',
        `${cost}; the site's daily limit of free decisions is reached and the pass's credits do not cover them; it resets at the next UTC midnight`,
        secondsToMidnight(now),
      );
  }
}

/** Engine failures become 429/502/503/504; anything else is a bug and stays one. */
export function engineFailure(error: unknown): unknown {
  if (!(error instanceof EngineError)) return error;
  switch (error.kind) {
    case 'busy':
      return new ServiceError('engine_busy', `the decision engine is busy: ${error.message}`, error.retryAfter ?? 5);
    case 'bad_response':
      return new ServiceError('engine_bad_response', `the decision engine's answer was unusable: ${error.message}`);
    case 'unavailable':
      return new ServiceError('engine_unavailable', `the decision engine is unavailable: ${error.message}`, error.retryAfter ?? 5);
    case 'timeout':
      return new ServiceError('engine_timeout', `the decision engine did not answer in time: ${error.message}`);
  }
}

/**
 * An engine's failure with the decision's internal readings (`"main"`, `"main-1"`,
 * `"reversed"`, `"sufficiency"`, …) named as the caller knows them: their question, or
 * the context-sufficiency check.
 */
export function inCallersWords(error: unknown, question: string): unknown {
  if (!(error instanceof EngineError)) return error;
  const shown = JSON.stringify(question.length > 60 ? `${question.slice(0, 59)}…` : question);
  const message = error.message
    .replace(/"(?:main|reversed)(?:-\d+)?"/g, shown)
    .replace(/"sufficiency(?:-\d+)?"/g, 'the context-sufficiency check');
  return message === error.message ? error : new EngineError(error.kind, message, error.retryAfter);
}
