import { describe, expect, it } from 'vitest';
import { calibrated, rescaled } from '../../src/decision/scaling.js';
import { fitScaling, meanLogLoss } from '../../src/eval/fit-scaling.js';

/** A scaling fitted by log loss finds the temperature and the place or label bias it was built with. */

/** Three-way readings of an engine right 60 % of the time, stating 0.6, that adds `bias` (log-odds) to the first place. */
function biased(bias: number, n = 300) {
  return Array.from({ length: n }, (_, i) => {
    const answer = i % 3;
    const right = i % 5 < 3; // 60 % right
    const top = right ? answer : (answer + 1 + (i % 2)) % 3;
    const p = [0, 1, 2].map((c) => (c === top ? 0.6 : 0.2));
    return { p: rescaled('choice', p, { temperature: 1, offsets: [bias, 0, 0] }), answer };
  });
}

describe('fitting a scaling', () => {
  it('a first-place bias comes back as an offset that cancels it, and lowers the log loss', () => {
    const scored = biased(0.8);
    const fit = fitScaling('choice', scored, { offsets: true });
    expect(fit.offsets![0]).toBeCloseTo(-0.8, 1);
    expect(fit.offsets![2]).toBeCloseTo(0, 1);
    expect(fit.temperature).toBeCloseTo(1, 1);
    expect(meanLogLoss('choice', scored, fit)).toBeLessThan(meanLogLoss('choice', scored, { temperature: 1 }) - 0.02);
  });

  it('without offsets, a temperature only; with no bias to find, the offsets stay near 0', () => {
    expect(fitScaling('choice', biased(0.8), { offsets: false }).offsets).toBeUndefined();
    const fair = fitScaling('choice', biased(0), { offsets: true });
    for (const o of fair.offsets!) expect(Math.abs(o)).toBeLessThan(0.05);
  });

  it('a bias toward yes is an offset on yes; bounds hold on readings that ask for more', () => {
    const yes = Array.from({ length: 200 }, (_, i) => ({ p: [0.8, 0.2], answer: i % 2 }));
    const fit = fitScaling('noul', yes, { offsets: true });
    // Stated 0.8 for yes, right half the time: the offset brings yes back to about 0.5.
    expect(rescaled('noul', [0.8, 0.2], fit)[0]).toBeCloseTo(0.5, 1);
    const always = Array.from({ length: 50 }, () => ({ p: [0.55, 0.45], answer: 0 }));
    const sharp = fitScaling('noul', always, { offsets: false });
    expect(sharp.temperature).toBe(0.25);
  });
});

describe('applying a scaling to a decision', () => {
  it("a choice's place offsets go to the places its options are shown at, sorted, whatever order the request lists them in", () => {
    const scalings = { choice: { temperature: 1, offsets: [-1, 0, 0] } };
    for (const labels of [
      ['b', 'a', 'c'],
      ['c', 'b', 'a'],
      ['a', 'c', 'b'],
    ]) {
      const reading = calibrated({ mode: 'choice', labels, p: [1 / 3, 1 / 3, 1 / 3] }, scalings);
      // "a" is shown first: only it loses, wherever the request put it.
      const p = reading.mode === 'choice' ? reading.p : [];
      const a = labels.indexOf('a');
      expect(p[a]).toBeCloseTo(Math.exp(-1) / (Math.exp(-1) + 2), 12);
      for (const [i, x] of p.entries()) if (i !== a) expect(x).toBeCloseTo(1 / (Math.exp(-1) + 2), 12);
    }
  });
});
