import { describe, expect, it } from 'vitest';
import { auroc, brier, correctness, logLoss, quality, reliability, totalVariation } from '../../src/eval/metrics.js';

describe('eval figures', () => {
  it('correctness: the top answer right or wrong, and a tie shares the credit', () => {
    expect(correctness({ p: [0.7, 0.3], answer: 0 })).toBe(1);
    expect(correctness({ p: [0.7, 0.3], answer: 1 })).toBe(0);
    expect(correctness({ p: [0.4, 0.4, 0.2], answer: 1 })).toBe(0.5);
    expect(correctness({ p: [0.4, 0.4, 0.2], answer: 2 })).toBe(0);
  });

  it('Brier over every class: 0 when certain and right, 2 when certain and wrong', () => {
    expect(brier({ p: [1, 0, 0], answer: 0 })).toBe(0);
    expect(brier({ p: [1, 0, 0], answer: 2 })).toBe(2);
    expect(brier({ p: [0.5, 0.5], answer: 0 })).toBeCloseTo(0.5, 10);
  });

  it("log loss of the answer, floored at the API's smallest step so a certain miss stays finite", () => {
    expect(logLoss({ p: [0.5, 0.5], answer: 1 })).toBeCloseTo(Math.LN2, 10);
    expect(logLoss({ p: [1, 0], answer: 1 })).toBeCloseTo(-Math.log(1e-4), 10);
  });

  it('ECE is 0 when each bin is right as often as it says, and the gap when it is not', () => {
    const calibrated = [...Array(10)].map((_, i) => ({ p: [0.9, 0.1], answer: i < 9 ? 0 : 1 }));
    expect(reliability(calibrated).ece).toBe(0);
    const overconfident = [...Array(10)].map((_, i) => ({ p: [0.9, 0.1], answer: i < 5 ? 0 : 1 }));
    const { ece, bins } = reliability(overconfident);
    expect(ece).toBeCloseTo(0.4, 10);
    // 0.9 falls in the 14th of 15 bins, [0.8667, 0.9333).
    expect(bins).toHaveLength(15);
    expect(bins[13]).toMatchObject({ n: 10, confidence: 0.9, accuracy: 0.5 });
    expect(bins.filter((b) => b.n > 0)).toHaveLength(1);
  });

  it('ECE weighs each bin by its share of the readings; certainty lands in the last bin', () => {
    const scored = [
      { p: [1, 0], answer: 0 },
      { p: [1, 0], answer: 1 },
      { p: [0.6, 0.4], answer: 0 },
      { p: [0.6, 0.4], answer: 0 },
    ];
    // Bin of 1.0: stated 1, right 1/2 → gap 0.5, weight 1/2; bin of 0.6: stated 0.6, right 1 → gap 0.4, weight 1/2.
    expect(reliability(scored).ece).toBeCloseTo(0.45, 10);
    expect(reliability(scored).bins[14].n).toBe(2);
  });

  it('AUROC: 1 when every positive scores higher, 0 when every one scores lower, ties count a half', () => {
    expect(auroc([0.9, 0.8], [0.1, 0.2, 0.3])).toBe(1);
    expect(auroc([0.1], [0.9, 0.8])).toBe(0);
    expect(auroc([0.5, 0.5], [0.5])).toBe(0.5);
    // Pairs: (0.8 > 0.3), (0.8 > 0.5), (0.4 > 0.3), (0.4 < 0.5) → 3 of 4.
    expect(auroc([0.8, 0.4], [0.3, 0.5])).toBe(0.75);
    expect(auroc([], [0.5])).toBeNull();
  });

  it('total variation distance is half the absolute differences', () => {
    expect(totalVariation([0.5, 0.5], [0.9, 0.1])).toBeCloseTo(0.4, 10);
    expect(totalVariation([0.2, 0.3, 0.5], [0.2, 0.3, 0.5])).toBe(0);
  });

  it('an empty group has n 0 and no figures rather than zeros', () => {
    expect(quality([])).toMatchObject({ n: 0, accuracy: null, brier: null, logLoss: null, ece: null });
  });
});
