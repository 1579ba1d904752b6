/** The service reads time only through a Clock, so tests can cross a UTC midnight. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Whole seconds until the next UTC midnight, at least 1 (a Retry-After of 0 invites a busy loop). */
export function secondsToMidnight(now: Date): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000));
}
