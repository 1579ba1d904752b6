import { utcDay } from '../contract/utc-day.js';

/** How many UTC days a pass's usage history covers, today included. */
export const HISTORY_DAYS = 30;

/** What one key of a pass was charged on one UTC day: decisions free and paid, and the credits paid. */
export interface KeyDayUsage {
  keyId: string;
  /** Decisions paid by the key's free allowance (a System One request counts its questions). */
  free: number;
  /** Decisions paid with the pass's credits. */
  paid: number;
  /** Credits those paid decisions took (a stress decision 5). */
  credits: number;
}

/** One UTC day of a pass's use: its totals and, by key, what made them (keys without use left out). */
export interface DayUsage {
  day: string;
  free: number;
  paid: number;
  credits: number;
  keys: KeyDayUsage[];
}

/** The first and last UTC day of the history that ends on the day of `now`. */
export function historyDays(now: Date): { first: string; last: string } {
  const last = utcDay(now);
  const start = new Date(`${last}T00:00:00.000Z`);
  start.setUTCDate(start.getUTCDate() - (HISTORY_DAYS - 1));
  return { first: utcDay(start), last };
}

/**
 * The history both stores give: every day of the last HISTORY_DAYS, oldest first, a
 * day without use as zeros, from their rows of committed charges grouped by day and key.
 */
export function usageHistory(rows: Array<KeyDayUsage & { day: string }>, now: Date): DayUsage[] {
  const { first } = historyDays(now);
  const byDay = new Map<string, DayUsage>();
  const cursor = new Date(`${first}T00:00:00.000Z`);
  for (let i = 0; i < HISTORY_DAYS; i++) {
    const day = utcDay(cursor);
    byDay.set(day, { day, free: 0, paid: 0, credits: 0, keys: [] });
    cursor.setUTCDate(cursor.getUTCDate() + 1);
  }
  for (const { day, ...key } of rows) {
    const total = byDay.get(day);
    if (!total) continue; // outside the window (the stores ask only for it)
    total.free += key.free;
    total.paid += key.paid;
    total.credits += key.credits;
    total.keys.push(key);
  }
  return [...byDay.values()];
}
