/** The service reads time only through a Clock, so tests can cross a UTC midnight. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** `YYYY-MM-DD` of the UTC day `now` falls in: the ledger's own rule, so the service's days are the ledger's. */
export { utcDay } from '../ledger/rules.js';

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Whole seconds until the next UTC midnight, at least 1 (a Retry-After of 0 invites a busy loop). */
export function secondsToMidnight(now: Date): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000));
}
