import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/net/retry-after.js';

const now = Date.parse('2026-11-22T10:00:00.000Z');
const read = (value: string | string[] | undefined, maxMs?: number) => parseRetryAfter(value, { now, maxMs });

describe('Retry-After', () => {
  it('reads delay-seconds, digits only, as milliseconds', () => {
    expect(read('120')).toBe(120_000);
    expect(read('0')).toBe(0);
    expect(read('007')).toBe(7_000);
  });

  it('takes the spaces and tabs around a field value off, and nothing else', () => {
    expect(read('  3 ')).toBe(3_000);
    expect(read('\t3')).toBe(3_000);
    expect(read('3\n')).toBeUndefined();
  });

  it.each(['1e3', '0x10', '-1', '+1', '1.5', '0.2', ' 5x', '5 s', '', '   ', 'soon', 'Infinity', 'NaN'])(
    '%j is no delay: undefined',
    (value) => {
      expect(read(value)).toBeUndefined();
    },
  );

  it('reads an IMF-fixdate as the time left until it, 0 once past', () => {
    expect(read('Sun, 22 Nov 2026 10:00:07 GMT')).toBe(7_000);
    expect(read('Sat, 21 Nov 2026 10:00:00 GMT')).toBe(0);
    expect(read('Thu, 01 Jan 1970 00:00:00 GMT')).toBe(0);
  });

  it('caps a wait: a date or a number far ahead is read as the cap, a day unless the caller names one', () => {
    expect(read('Fri, 01 Jan 2100 00:00:00 GMT')).toBe(MAX_RETRY_AFTER_MS);
    expect(read('99999999999999999999999')).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
    expect(read('120', 60_000)).toBe(60_000);
    expect(read('Sun, 22 Nov 2026 10:00:07 GMT', 5_000)).toBe(5_000);
  });

  it.each([
    ['a date that does not exist', 'Mon, 31 Feb 2026 10:00:00 GMT'],
    ['a time that does not exist', 'Sun, 22 Nov 2026 24:00:00 GMT'],
    ["a weekday that is not the date's", 'Mon, 22 Nov 2026 10:00:07 GMT'],
    ['another zone', 'Sun, 22 Nov 2026 10:00:07 UTC'],
    ['the obsolete RFC 850 form', 'Sunday, 22-Nov-26 10:00:07 GMT'],
    ['the obsolete asctime form', 'Sun Nov 22 10:00:07 2026'],
    ['ISO 8601', '2026-11-22T10:00:07Z'],
    ['a date with text after it', 'Sun, 22 Nov 2026 10:00:07 GMT x'],
  ])('%s is no HTTP-date: undefined', (_, value) => {
    expect(read(value)).toBeUndefined();
  });

  it('absent, or sent twice, is none', () => {
    expect(read(undefined)).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(read(['5'])).toBe(5_000);
    expect(read(['5', '7'])).toBeUndefined();
    expect(read('5, 7')).toBeUndefined();
  });
});
