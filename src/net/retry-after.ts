/**
 * `Retry-After` (RFC 9110 §10.2.3), as the one reading every part of decide shares: the
 * typed client reading the service, the engines reading their providers.
 *
 * The value is either delay-seconds (digits and nothing else) or an HTTP-date in the
 * IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`). Anything else is read as no
 * `Retry-After` at all, so the caller falls back on its own backoff: a lenient reading
 * turned "1e3" into a 1000 s wait, "0x10" into 16 s, and "-1" (a date in the year 2001
 * to `Date.parse`) into a retry at once, in a tight loop. The obsolete date forms
 * (RFC 850, asctime) are not read; no server of this century sends them.
 *
 * No import beyond the language: the published client loads this file.
 */

/** The longest wait a `Retry-After` is read as, unless the caller names its own cap: a day (a free allowance resets within one). */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

const DELAY_SECONDS = /^[0-9]+$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$/;

export interface RetryAfterOptions {
  /** The clock, in ms since the epoch, that an HTTP-date is measured from (default now). */
  now?: number;
  /** The longest wait returned: a longer one (a date years ahead, say) is read as this (default a day). */
  maxMs?: number;
}

/**
 * The wait a `Retry-After` asks for, in milliseconds, at most `maxMs`; 0 for a date
 * already past; undefined when the header is absent or is neither delay-seconds nor an
 * IMF-fixdate. A header sent twice (an array, or fetch's "a, b") is not one value, so
 * it is no value either.
 */
export function parseRetryAfter(value: string | readonly string[] | null | undefined, options: RetryAfterOptions = {}): number | undefined {
  if (value == null) return undefined;
  // A field value does not include the spaces or tabs around it (RFC 9110 §5.5).
  const raw = (typeof value === 'string' ? value : value.join(', ')).replace(/^[ \t]+|[ \t]+$/g, '');
  const { now = Date.now(), maxMs = MAX_RETRY_AFTER_MS } = options;
  let ms: number | undefined;
  if (DELAY_SECONDS.test(raw)) ms = Number(raw) * 1000;
  else {
    const date = httpDate(raw);
    if (date !== undefined) ms = Math.max(0, date - now);
  }
  return ms === undefined ? undefined : Math.min(ms, maxMs);
}

/** An IMF-fixdate as ms since the epoch, or undefined unless it names a real moment (no 31 Feb) on its own weekday. */
function httpDate(text: string): number | undefined {
  const parts = IMF_FIXDATE.exec(text);
  if (!parts) return undefined;
  const [, dayName, day, month, year, hour, minute, second] = parts;
  const at = new Date(Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hour), Number(minute), Number(second)));
  const real =
    at.getUTCDate() === Number(day) &&
    at.getUTCHours() === Number(hour) &&
    at.getUTCMinutes() === Number(minute) &&
    at.getUTCSeconds() === Number(second) &&
    DAYS[at.getUTCDay()] === dayName;
  return real ? at.getTime() : undefined;
}
