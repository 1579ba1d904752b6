import { describe, expect, it } from 'vitest';
import { columnDecimals, percent, percentTo, shares, wholePercent } from '../../src/cli/ui/percent.js';

/** Per cent as the terminal shows it: from the API's 4-decimal steps, never off by a binary fraction. */

const tenths = (text: string) => Math.round(Number(text.replace('%', '')) * 10);

/** A random distribution in 4-decimal steps summing to exactly 1, as the API reports one. */
function distribution(k: number, random: () => number): number[] {
  const cuts = Array.from({ length: k - 1 }, () => Math.floor(random() * 10_001)).sort((a, b) => a - b);
  const bounds = [0, ...cuts, 10_000];
  return bounds.slice(1).map((b, i) => (b - bounds[i]) / 10_000);
}

/** A small seeded generator, so a failure names a distribution that can be replayed. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

describe('per cent', () => {
  it('one value: a tenth of a per cent, half up on the exact step', () => {
    expect(percent(0.6905)).toBe('69.1%');
    expect(percent(0.3095)).toBe('31.0%');
    expect(percent(0.0004)).toBe('0.0%');
    expect(percent(1)).toBe('100.0%');
  });

  it('one value to a whole per cent: half up on the exact step, where p * 100 would round down', () => {
    expect([0.145, 0.285, 0.565, 0.875, 0.5, 0.0049].map(wholePercent)).toEqual(['15%', '29%', '57%', '88%', '50%', '0%']);
  });

  it('the shares of one answer sum to exactly 100.0%', () => {
    // Each rounded on its own: 69.1% + 31.0% = 100.1%.
    expect(shares([0.6905, 0.3095])).toEqual(['69.1%', '30.9%']);
    expect(shares([0.3334, 0.3333, 0.3333])).toEqual(['33.4%', '33.3%', '33.3%']);
    // Equal remainders: the tenths left over go to the larger value first, then the earlier ones.
    expect(shares([0.1665, 0.1665, 0.1665, 0.1665, 0.1665, 0.1675])).toEqual(['16.7%', '16.7%', '16.6%', '16.6%', '16.6%', '16.8%']);
  });

  it('for any distribution: 100.0% in all, each share within a tenth of its value, order kept', () => {
    const random = seeded(19);
    for (let n = 0; n < 2000; n++) {
      const ps = distribution(2 + (n % 5), random);
      const shown = shares(ps).map(tenths);
      expect(
        shown.reduce((a, b) => a + b, 0),
        ps.join(' '),
      ).toBe(1000);
      ps.forEach((p, i) => {
        expect(Math.abs(shown[i] - p * 1000), ps.join(' ')).toBeLessThan(1);
        ps.forEach((q, j) => {
          if (p > q) expect(shown[i], ps.join(' ')).toBeGreaterThanOrEqual(shown[j]);
        });
      });
    }
  });

  it('a column of shifts: one decimal, two where one would show two different shifts alike', () => {
    expect(columnDecimals([0.04, 0.41, 0.8])).toBe(1);
    expect(columnDecimals([0.3, 0.3])).toBe(1); // equal shifts are equal at any precision
    expect(columnDecimals([0.04, 0.8012, 0.7981])).toBe(1);
    expect(columnDecimals([0.04, 0.8012, 0.8009])).toBe(2);
    expect(percentTo(0.8012, 2)).toBe('80.12%');
    expect(percentTo(0.8009, 2)).toBe('80.09%');
    expect(percentTo(0.8009, 1)).toBe('80.1%');
    expect(percentTo(0.05, 2)).toBe('5.00%');
  });
});
