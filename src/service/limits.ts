import type { SiteLimits } from '../config/config.js';
import type { Limits } from '../ledger/store.js';

/** The contract's free allowance is fixed; the site's limits are the operator's to set. */
export const FREE_PER_KEY = 20;
/**
 * New keys a client IP may create from the pages per UTC day (docs/api.md, "Passes, keys
 * and decisions from a browser"). A funded pass whose keys are all revoked may make a
 * replacement past it, once a day (the ledger's rule: ledger/web.ts, `createKey`).
 */
export const KEYS_PER_IP_PER_DAY = 2;
/**
 * New passes (browsers verified) per client IP per UTC day. Each holds keys, so a few
 * more than the keys allow: a household's browsers, a cleared cookie; what it stops
 * is a script filling the ledger with passes where verification is `none`.
 */
export const PASSES_PER_IP_PER_DAY = 5;

/** The ledger's limits: the contract's allowance per key, and the site's as the operator set them. */
export function limitsOf(site: SiteLimits): Limits {
  return { freePerKey: FREE_PER_KEY, ...site };
}
