import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/contract/utc-day.js';

// utcDay keeps the last day it computed; these go back and forth across its bounds.
describe('utcDay', () => {
  it('names the UTC day of each instant, across midnights, back and forth', () => {
    const cases: [string, string][] = [
      ['2026-11-23T23:59:59.999Z', '2026-11-23'],
      ['2026-11-24T00:00:00.000Z', '2026-11-24'],
      ['2026-11-23T00:00:00.000Z', '2026-11-23'],
      ['2026-11-23T12:00:00.000Z', '2026-11-23'],
      ['2026-12-31T23:59:59.999Z', '2026-12-31'],
      ['2027-01-01T00:00:00.000Z', '2027-01-01'],
      ['2028-02-29T08:00:00.000+08:00', '2028-02-29'],
      ['2028-02-29T07:59:59.999+08:00', '2028-02-28'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31'],
      ['1970-01-01T00:00:00.000Z', '1970-01-01'],
      ['2026-11-24T00:00:00.000Z', '2026-11-24'],
    ];
    for (const [instant, day] of cases) expect(utcDay(new Date(instant)), instant).toBe(day);
  });

  it('throws for an invalid Date, even right after a valid one', () => {
    expect(utcDay(new Date('2026-11-23T10:00:00Z'))).toBe('2026-11-23');
    expect(() => utcDay(new Date(NaN))).toThrow(RangeError);
  });
});
