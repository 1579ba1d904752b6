import type { Access } from '../contract/index.js';
import type { Depth } from '../contract/decision.js';
import type { Limits } from '../ledger/store.js';
import { secondsToMidnight } from './clock.js';

/** The key's free allowance as an answer leaves it: what the RateLimit headers announce. */
export interface Allowance {
  /** Free standard decisions a key has a UTC day. */
  limit: number;
  /** What is left of them, or null where the answer says nothing of it: a replay spends nothing and was read at another time, and a stress decision never uses the allowance. */
  remaining: number | null;
  /** Seconds until the allowance resets, at the next UTC midnight. */
  resetSeconds: number;
}

/**
 * The one rule for every paid route. Free access says what is left; a standard decision
 * paid by credit means the allowance is gone (or held back by the site's limits), so 0.
 */
export function allowanceAfter(access: Access | undefined, depth: Depth, limits: Limits, now: Date): Allowance {
  const remaining = access === undefined ? null : access.type === 'free' ? access.freeRemaining : depth === 'standard' ? 0 : null;
  return { limit: limits.freePerKey, remaining, resetSeconds: secondsToMidnight(now) };
}
