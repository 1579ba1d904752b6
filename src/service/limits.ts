import type { Limits } from '../ledger/store.js';

/** The contract's free allowance is fixed; the site's limits are the operator's to set. */
export const FREE_PER_KEY = 20;
/** New keys a client IP may create from the pages per UTC day (docs/api.md, "Passes, keys and decisions from a browser"). */
export const KEYS_PER_IP_PER_DAY = 2;
/**
 * New passes (browsers verified) per client IP per UTC day. Each holds keys, so a few
 * more than the keys allow: a household's browsers, a cleared cookie; what it stops
 * is a script filling the ledger with passes where verification is `none`.
 */
export const PASSES_PER_IP_PER_DAY = 5;

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0 (0 = no limit), not "${raw}"`);
  return n;
}

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Limits {
  return {
    freePerKey: FREE_PER_KEY,
    freePerIp: count(env, 'DECIDE_FREE_PER_IP', 200),
    freePerSite: count(env, 'DECIDE_FREE_PER_SITE', 50_000),
  };
}
