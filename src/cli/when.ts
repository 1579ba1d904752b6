/**
 * Times as people read them, never as ISO strings: "2026-11-22 18:48 UTC", and
 * countdowns in hours and minutes. The service counts its days in UTC, so UTC is
 * always said; the local time is added where this machine's zone is another.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-22 18:48 UTC" */
export function clockWords(iso: string | Date): string {
  const at = new Date(iso);
  return `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
}

/** "00:00 UTC", and beside it the same moment on this machine's clock when its zone is not UTC: "09:00 GMT+9". */
export function timeOfDayWords(iso: string): { utc: string; local?: string } {
  const at = new Date(iso);
  const utc = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
  if (at.getTimezoneOffset() === 0) return { utc };
  // en-GB: a 24-hour clock and a zone's short name, whatever the machine's language.
  const local = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(at);
  return { utc, local };
}
