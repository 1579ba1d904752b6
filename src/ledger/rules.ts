import type { Channel, Limits } from './store.js';

/**
 * The rules both ledger implementations (SQLite and PostgreSQL) apply the same way;
 * the store conformance suite (test/ledger/store-suite.ts) holds them to it.
 */

/** What a decision costs: one free unit or credit at standard depth, five credits for stress. */
export const STANDARD_COST = 1;
export const STRESS_COST = 5;

/** How long a stored answer can be replayed (CONTRACT.md, "Idempotent retries"). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const CHANNELS: readonly Channel[] = ['api', 'web'];

/** A row of the `charges` table as both stores read it back to settle it. */
export interface ChargeRow {
  kind: 'free' | 'credits';
  cost: number;
  key_id: string;
  pass_id: string;
  day: string;
  ip_fingerprint: Buffer | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function checkDay(day: string): void {
  if (!DAY.test(day)) throw new Error(`A day must be YYYY-MM-DD (UTC), got ${JSON.stringify(day)}.`);
}

export function checkLimits(limits: Limits): Limits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`Limit ${name} must be a non-negative integer.`);
  }
  return { ...limits };
}

export function checkSample(channel: Channel, ms: number): void {
  if (!CHANNELS.includes(channel)) throw new Error(`Unknown channel ${String(channel)}.`);
  if (!Number.isFinite(ms) || ms < 0) throw new Error('A sample must be a non-negative number of milliseconds.');
}

export function checkFunding(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits < 1) throw new Error('Credits must be a positive integer.');
}

export function checkKeyLimit(perIpLimit: number): void {
  if (!Number.isSafeInteger(perIpLimit) || perIpLimit < 0) throw new Error('A key creation limit must be a non-negative integer.');
}

/** Setting names: short, plain identifiers (they are never user input, but keep them tidy). */
export function checkSettingName(name: string): void {
  if (!/^[a-z][a-z0-9_.]{0,62}$/.test(name)) throw new Error(`Bad setting name ${JSON.stringify(name)}.`);
}
