import { describe, expect, it } from 'vitest';
import {
  expectedLevel,
  peakConfidence,
  type Reading,
  round4,
  roundDistribution,
  signalOf,
  topIndex,
  totalVariation,
  weigh,
} from '../../src/decision/outcome.js';

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const decimals = (x: number) => (String(x).split('.')[1] ?? '').length;

const choice = (p: number[], labels = p.map((_, i) => `option ${i}`)): Reading => ({ mode: 'choice', labels, p });
const score = (p: number[]): Reading => ({ mode: 'score', labels: ['low', 'medium', 'high'], p });
const noul = (yes: number): Reading => ({ mode: 'noul', yes });

describe('roundDistribution', () => {
  it('keeps the sum at 1 where plain rounding drifts', () => {
    const thirds = [1 / 3, 1 / 3, 1 / 3];
    expect(sum(thirds.map(round4))).toBeCloseTo(0.9999, 10);
    const rounded = roundDistribution(thirds);
    expect(rounded).toEqual([0.3334, 0.3333, 0.3333]);
    expect(Math.abs(sum(rounded) - 1)).toBeLessThan(1e-9);

    const sixths = roundDistribution(Array(6).fill(1 / 6));
    expect(sixths).toEqual([0.1667, 0.1667, 0.1667, 0.1667, 0.1666, 0.1666]);
  });

  it('rounds to 4 decimals, moves each value by less than 1e-4 and keeps the order', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let run = 0; run < 500; run++) {
      const k = 2 + (run % 5);
      const raw = Array.from({ length: k }, () => random() ** 3);
      const p = raw.map((x) => x / sum(raw));
      const rounded = roundDistribution(p);
      expect(Math.abs(sum(rounded) - 1)).toBeLessThan(1e-9);
      rounded.forEach((r, i) => {
        expect(decimals(r)).toBeLessThanOrEqual(4);
        expect(Math.abs(r - p[i])).toBeLessThan(1e-4);
        for (let j = 0; j < k; j++) if (p[i] > p[j]) expect(r).toBeGreaterThanOrEqual(rounded[j]);
      });
    }
  });

  it('leaves values that are already at 4 decimals alone', () => {
    expect(roundDistribution([0.7, 0.2, 0.1])).toEqual([0.7, 0.2, 0.1]);
    expect(roundDistribution([0.29, 0.71])).toEqual([0.29, 0.71]);
    expect(roundDistribution([1, 0])).toEqual([1, 0]);
  });
});

describe('peakConfidence', () => {
  for (let k = 2; k <= 6; k++) {
    it(`is 0 for a uniform and 1 for a certain distribution of ${k}`, () => {
      expect(peakConfidence(1 / k, k)).toBe(0);
      expect(peakConfidence(1, k)).toBe(1);
    });
  }

  it('follows (k·pmax − 1)/(k − 1), rounded to 4', () => {
    expect(peakConfidence(0.75, 2)).toBe(0.5);
    expect(peakConfidence(0.6, 3)).toBe(0.4);
    expect(peakConfidence(0.5, 4)).toBe(0.3333);
    expect(peakConfidence(0.4, 6)).toBe(0.28);
  });

  it('is clipped to [0, 1]', () => {
    expect(peakConfidence(0.1, 3)).toBe(0);
    expect(peakConfidence(1.0000001, 3)).toBe(1);
  });
});

describe('expectedLevel', () => {
  it('is Σ i·pᵢ with 0 the lowest level', () => {
    expect(expectedLevel([1, 0, 0])).toBe(0);
    expect(expectedLevel([0, 0, 1])).toBe(2);
    expect(expectedLevel([1 / 3, 1 / 3, 1 / 3])).toBe(1);
    expect(expectedLevel([0.2, 0.3, 0.5])).toBe(1.3);
    expect(expectedLevel([0.12345, 0.5, 0.37655])).toBe(1.2531);
  });
});

describe('topIndex', () => {
  it('picks the largest value, the first one on a tie', () => {
    expect(topIndex([0.2, 0.5, 0.3])).toBe(1);
    expect(topIndex([0.4, 0.4, 0.2])).toBe(0);
    expect(topIndex([0.2, 0.4, 0.4])).toBe(1);
  });
});

describe('weigh', () => {
  it('builds a choice result keyed in request order and spelling', () => {
    const { result, top } = weigh(choice([0.1, 0.6, 0.3], ['Keep Postgres', 'SQLite', 'DuckDB']));
    expect(result).toEqual({
      selected: 'SQLite',
      confidence: 0.4,
      probabilities: { 'Keep Postgres': 0.1, SQLite: 0.6, DuckDB: 0.3 },
    });
    expect(Object.keys((result as { probabilities: object }).probabilities)).toEqual(['Keep Postgres', 'SQLite', 'DuckDB']);
    expect(top).toBe('SQLite');
  });

  it('selects the first option in request order on a tie', () => {
    expect(weigh(choice([0.4, 0.4, 0.2], ['a', 'b', 'c'])).result).toMatchObject({ selected: 'a' });
    expect(weigh(choice([0.2, 0.4, 0.4], ['a', 'b', 'c'])).result).toMatchObject({ selected: 'b' });
    expect(weigh(choice([1 / 3, 1 / 3, 1 / 3], ['a', 'b', 'c'])).result).toMatchObject({ selected: 'a', confidence: 0 });
  });

  it('builds a score result with the expected level and the normalised peak', () => {
    expect(weigh(score([0.2, 0.3, 0.5])).result).toEqual({
      score: 1.3,
      likeliest: 'high',
      confidence: 0.25,
      probabilities: { low: 0.2, medium: 0.3, high: 0.5 },
    });
  });

  it('names the likeliest level of a score, which the mean need not be, ties to the first in request order', () => {
    // The answer: the mean is 1.00 (medium), the likeliest level is low.
    const split = weigh(score([0.384, 0.235, 0.381]));
    expect(split.result).toMatchObject({ score: 0.997, likeliest: 'low', confidence: 0.076 });
    expect(split.top).toBe('low');
    expect(weigh(score([0.1, 0.2, 0.7])).result).toMatchObject({ likeliest: 'high' });
    expect(weigh(score([0.2, 0.4, 0.4])).result).toMatchObject({ likeliest: 'medium' });
    expect(weigh(score([0.4, 0.2, 0.4])).result).toMatchObject({ likeliest: 'low' });
    expect(weigh(score([1 / 3, 1 / 3, 1 / 3])).result).toMatchObject({ likeliest: 'low', confidence: 0 });
  });

  it('rounds a noul yes probability and names its side of 0.5', () => {
    expect(weigh(noul(0.123456))).toEqual({ result: { yesProbability: 0.1235 }, steps: [8765, 1235], top: 'no' });
    expect(weigh(noul(0.5)).top).toBe('even');
    expect(weigh(noul(0.50004)).top).toBe('even');
    expect(weigh(noul(0.50005)).top).toBe('yes');
    expect(weigh(noul(0.4999)).top).toBe('no');
  });
});

describe('signalOf', () => {
  it('says needs-context below 0.5 sufficiency, before anything else', () => {
    expect(signalOf(weigh(noul(0.99)), 0.4999)).toBe('needs-context');
    expect(signalOf(weigh(choice([1, 0])), 0)).toBe('needs-context');
    expect(signalOf(weigh(noul(0.99)), 0.5)).toBe('yes');
  });

  it('places the noul boundaries at exactly 0.6 and 0.4', () => {
    const at = (yes: number) => signalOf(weigh(noul(yes)), 1);
    expect(at(0.6)).toBe('yes');
    expect(at(0.59999)).toBe('yes'); // reported as 0.6
    expect(at(0.5999)).toBe('unclear');
    expect(at(0.5)).toBe('unclear');
    expect(at(0.4001)).toBe('unclear');
    expect(at(0.4)).toBe('no');
    expect(at(0.40004)).toBe('no'); // reported as 0.4
    expect(at(0)).toBe('no');
    expect(at(1)).toBe('yes');
  });

  it('says directional when the top leads the second by at least 0.15', () => {
    const at = (p: number[]) => signalOf(weigh(choice(p)), 1);
    // 0.345 − 0.195 is not 0.15 in floating point; the boundary still holds.
    expect(0.345 - 0.195).toBeLessThan(0.15);
    expect(at([0.345, 0.195, 0.195, 0.195, 0.07])).toBe('directional');
    expect(at([0.3, 0.55, 0.15])).toBe('directional');
    expect(at([0.45, 0.3, 0.25])).toBe('directional');
    expect(at([0.4499, 0.3, 0.2501])).toBe('unclear');
    expect(at([0.575, 0.425])).toBe('directional');
    expect(at([0.5749, 0.4251])).toBe('unclear');
    expect(at([0.4, 0.4, 0.2])).toBe('unclear');
    expect(signalOf(weigh(score([0.1, 0.4, 0.5])), 1)).toBe('unclear');
    expect(signalOf(weigh(score([0.15, 0.35, 0.5])), 1)).toBe('directional');
    expect(signalOf(weigh(score([0.1501, 0.35, 0.4999])), 1)).toBe('unclear');
  });
});

describe('totalVariation', () => {
  it('is half the sum of absolute differences, in request order', () => {
    expect(totalVariation(weigh(choice([0.6, 0.3, 0.1])), weigh(choice([0.2, 0.3, 0.5])))).toBe(0.4);
    expect(totalVariation(weigh(score([0.2, 0.3, 0.5])), weigh(score([0.2, 0.3, 0.5])))).toBe(0);
    expect(totalVariation(weigh(choice([1, 0])), weigh(choice([0, 1])))).toBe(1);
  });

  it('is |p − p′| for noul', () => {
    expect(totalVariation(weigh(noul(0.83)), weigh(noul(0.42)))).toBe(0.41);
    expect(totalVariation(weigh(noul(0.1)), weigh(noul(0.1)))).toBe(0);
  });
});
