/** @jsxImportSource hono/jsx */
import { utcDay } from '../../contract/utc-day.js';

/**
 * Times on the pages: in words a reader takes in at a glance ("today", "3 days ago"),
 * counted in UTC days as the free allowance is, with the exact time in the element's
 * title and its machine-readable form in `datetime`.
 */

const DAY_MS = 86_400_000;

/** `2026-11-22 10:15 UTC`: the exact time, as a title shows it. */
export const exactly = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** Whole UTC days from the day of `iso` to the day of `now`; 0 for a time later today or in the future. */
function daysBefore(iso: string, now: Date): number {
  return Math.max(0, Math.round((Date.parse(utcDay(now)) - Date.parse(utcDay(new Date(iso)))) / DAY_MS));
}

/** "today", "yesterday", "3 days ago", past two months "4 months ago". */
export function ago(iso: string, now: Date): string {
  const days = daysBefore(iso, now);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 60) return `${days} days ago`;
  return `${Math.floor(days / 30)} months ago`;
}

const DAY_WORDS = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' });

/** `Sun 22 Nov` of a UTC day `YYYY-MM-DD`. */
export const dayWords = (day: string) => DAY_WORDS.format(new Date(`${day}T00:00:00.000Z`));

/** A time in words, its exact UTC time in the title; "never" for none. */
export function Ago(props: { at: string | null; now: Date }) {
  if (props.at === null) return <>never</>;
  return (
    <time datetime={props.at} title={exactly(props.at)}>
      {ago(props.at, props.now)}
    </time>
  );
}

/** A UTC day in words (`Sun 22 Nov`), the day itself in `datetime`. */
export function Day(props: { day: string }) {
  return <time datetime={props.day}>{dayWords(props.day)}</time>;
}
