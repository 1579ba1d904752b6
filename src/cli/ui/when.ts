/**
 * Times as people read them, never as ISO strings: "2026-11-22 18:48 UTC", and
 * countdowns in hours and minutes. The service counts days in UTC, so UTC is always
 * said; the local time is added where the machine's zone is another.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-22 18:48 UTC" */
export function clockWords(iso: string | Date): string {
  const at = new Date(iso);
  return `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
}
