/**
 * The UTC day: the day of the free allowance, of the site's and the page's per-IP
 * limits, and of the metrics. The ledger counts by it and the service and the routes
 * tell clients when it turns, so it is defined once, below them all.
 */

const DAY_MS = 86_400_000;
let lastDay = { day: '', from: 0, until: 0 };

/**
 * `YYYY-MM-DD` of the UTC day `now` falls in: the day of the free allowance, of the
 * site's and the page's per-IP limits, and of the metrics. Throws for an invalid Date.
 */
export function utcDay(now: Date): string {
  // A decision asks several times, and toISOString is the costly part: the day last
  // asked for is kept with its bounds. NaN (an invalid Date) is in no day's bounds.
  const ms = now.getTime();
  if (ms >= lastDay.from && ms < lastDay.until) return lastDay.day;
  const day = now.toISOString().slice(0, 10);
  const from = Date.parse(day);
  lastDay = { day, from, until: from + DAY_MS };
  return day;
}
