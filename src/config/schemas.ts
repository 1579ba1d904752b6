import { z } from 'zod';
import { oneOf, wholeNumber } from './parse.js';
import { MAX_THREADS } from './variables.js';
import { DEBIAS_MODES } from '../contract/debias.js';
import { DECISION_LOG_LEVELS } from '../contract/decision-log.js';

/**
 * The schema of each variable with a rule (./variables.ts lists them all), apart from
 * ./parse.ts so a caller that needs only `httpUrl`, as `decide ask` does before it
 * sends, builds none of these.
 */

/** setTimeout's ceiling; beyond it Node fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

export const ENGINES = ['systemone', 'openai', 'anthropic', 'local'] as const;
export const engineKind = oneOf(ENGINES, 'one of systemone, openai, anthropic or local');
export const openaiProbabilities = oneOf(['logprobs', 'verbalized'], 'logprobs or verbalized');
export const engineTimeoutMs = wholeNumber(1, MAX_TIMER_MS, 'a positive whole number of milliseconds');
export const expiryMarginMs = wholeNumber(0, MAX_TIMER_MS, 'a whole number of milliseconds, 0 or more');
export const threads = wholeNumber(1, MAX_THREADS, `a whole number of threads from 1 to ${MAX_THREADS}`);
export const port = wholeNumber(0, 65535, 'a port number from 0 to 65535, in digits only');
export const debias = oneOf(DEBIAS_MODES, 'none, reverse or cyclic');
export const decisionLog = oneOf(DECISION_LOG_LEVELS, 'off, metadata or full');
/** A hundred years at most: enough for "keep it", and far from the date arithmetic's limits. */
export const retentionDays = wholeNumber(1, 36_500, 'a positive whole number of days (1 to 36500), in digits only');

/**
 * A daily limit. Kept as lenient as it has always been (any integer Number() reads,
 * `1e3` included), so no operator's working setting starts failing.
 */
export const dailyLimit = z
  .string()
  .transform(Number)
  .refine((n) => Number.isInteger(n) && n >= 0, 'a whole number ≥ 0 (0 = no limit)');
/** DECIDE_WEB: the pages and browser key creation, on or off. */
export const webSwitch = oneOf(['on', 'off'], 'on or off');
