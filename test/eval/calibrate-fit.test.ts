import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rescaled } from '../../src/decision/scaling.js';
import { HIGHEST_TEMPERATURE, judge, LOWEST_TEMPERATURE, MIN_READINGS } from '../../src/eval/calibrate.js';
import { fitScaling } from '../../src/eval/fit-scaling.js';
import { sizesOf, slotsOf } from '../../src/eval/calibration-readings.js';
import { splitHalves } from '../../src/eval/halves.js';
import { readSet } from '../../src/eval/item.js';
import type { Scored } from '../../src/eval/metrics.js';
import { planEval } from '../../src/eval/plan.js';
import { ROOT } from '../support/cli.js';

/** n yes/no readings stating `stated` for the first answer, right `right` times in n. */
const readings = (n: number, stated: number, right: number): Scored[] =>
  [...Array(n)].map((_, i) => ({ p: [stated, 1 - stated], answer: i < right ? 0 : 1 }));
/** The temperature alone, as a fit without offsets finds it. */
const fitTemperature = (scored: readonly Scored[]) => fitScaling('noul', scored, { offsets: false }).temperature;
/**
 * Readings of a calibrated yes/no engine: stating 0.9 for yes or for no in turn, right
 * 9 times in 10 either way, so no offset for yes can help and the temperature is 1.
 */
const balanced = (n: number, stated: number, right: number): Scored[] =>
  readings(n, stated, right).map((s, i) => (i % 2 ? { p: [...s.p].reverse(), answer: 1 - s.answer } : s));

describe('fitting a temperature', () => {
  it('finds the temperature at which the stated probability is the share right', () => {
    // Stated 0.9, right 7 times in 10: the fit states 0.7, i.e. 0.9^b / (0.9^b + 0.1^b) = 0.7.
    expect(fitTemperature(readings(10, 0.9, 7))).toBeCloseTo(Math.log(9) / Math.log(7 / 3), 2);
    // An underconfident engine is sharpened: T below 1.
    expect(fitTemperature(readings(10, 0.6, 8))).toBeLessThan(1);
    expect(fitTemperature([])).toBe(1);
  });

  it('stays within its bounds, so a middling reading is never served as a certainty', () => {
    // Always right at 0.558: unbounded, the fit sharpened to T = 0.02 and served 1.000.
    const sure = readings(40, 0.558, 40);
    expect(fitTemperature(sure)).toBe(LOWEST_TEMPERATURE);
    expect(rescaled('noul', [0.558, 0.442], { temperature: LOWEST_TEMPERATURE })[0]).toBeCloseTo(0.72, 2);
    // Stated 0.9 and right half the time: the readings say nothing, the fit flattens as far as allowed.
    expect(fitTemperature(readings(40, 0.9, 20))).toBe(HIGHEST_TEMPERATURE);
  });
});

describe('judging a fit on the held-out half', () => {
  it('keeps a fit that lowers held-out log loss beyond noise, and says so', () => {
    const fit = judge('noul', { even: balanced(60, 0.95, 42), odd: balanced(60, 0.95, 42) });
    expect(fit).toMatchObject({ kept: true, fitted: 60, heldOut: 60, boundHit: false });
    expect(fit.stored).toBe(fit.temperature);
    expect(fit.temperature!).toBeGreaterThan(2);
    expect(fit.logLossAfter!).toBeLessThan(fit.logLossBefore!);
    expect(fit.logLossInterval!.high).toBeLessThan(0);
    expect(fit.reason).toMatch(
      /^held-out log loss \d\.\d{3} → \d\.\d{3} \[−\d\.\d{3}, −\d\.\d{3}\]: better beyond noise, kept T = \d\.\d\d(, yes [−+]\d\.\d\d)?$/,
    );
  });

  it('keeps T = 1 when the fit does not help beyond noise, and names the interval', () => {
    // Calibrated on both halves: whatever the fit finds, it cannot do better beyond noise.
    const fit = judge('noul', { even: balanced(40, 0.7, 28), odd: balanced(40, 0.7, 27) });
    expect(fit).toMatchObject({ kept: false, stored: 1 });
    expect(fit.logLossInterval!.high).toBeGreaterThanOrEqual(0);
    expect(fit.reason).toMatch(
      /^held-out log loss \d\.\d{3} → \d\.\d{3} \[[−+]\d\.\d{3}, \+\d\.\d{3}\]: not better beyond noise \(the fit: T = \d\.\d\d.*\), kept T = 1$/,
    );
  });

  it('keeps T = 1 when the fit makes the held-out half worse, as a fit to one half can', () => {
    // Overconfident on the fitting half, underconfident on the held-out half.
    const fit = judge('noul', { even: balanced(40, 0.9, 24), odd: balanced(40, 0.6, 36) });
    expect(fit.temperature!).toBeGreaterThan(1);
    expect(fit.logLossInterval!.low).toBeGreaterThan(0);
    expect(fit).toMatchObject({ kept: false, stored: 1 });
  });

  it('reports a fit at its bound', () => {
    const fit = judge('sufficiency', { even: balanced(30, 0.8, 30), odd: balanced(30, 0.8, 30) });
    expect(fit).toMatchObject({ temperature: LOWEST_TEMPERATURE, kept: true, boundHit: true });
    expect(fit.reason).toMatch(/; the fit reached a bound \(T from 0\.25 to 8, offsets within ±3\): the readings asked for more$/);
  });

  it('refuses to fit a target with too few readings in either half, and stores nothing', () => {
    for (const [even, odd] of [
      [MIN_READINGS - 1, 50],
      [50, MIN_READINGS - 1],
    ]) {
      const fit = judge('choice', { even: readings(even, 0.9, 5), odd: readings(odd, 0.9, 5) });
      expect(fit).toMatchObject({ temperature: null, kept: false, stored: null, fitted: even, heldOut: odd, logLossInterval: null });
      expect(fit.reason).toBe(
        `too few readings (${even} to fit, ${odd} held out; 20 of each needed): not fitted, the ledger's temperature left as it was`,
      );
    }
  });
});

describe('the readings of each target', () => {
  const items = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));
  const plan = planEval(items);
  const slots = slotsOf(plan);
  const halfOf = splitHalves(items);

  it('fits on the even half and judges on the odd half of splitHalves, a family and a twin always on one side', () => {
    const halfOfKey = new Map<string, string>();
    for (const p of plan.items)
      for (const key of [p.given, p.withoutFact]) if (key !== null && !halfOfKey.has(key)) halfOfKey.set(key, halfOf.get(p.item.id)!);
    for (const slot of slots) expect(slot.half, slot.key).toBe(halfOfKey.get(slot.key));
    for (const item of items.filter((i) => i.id.endsWith('-nofact')))
      expect(halfOf.get(item.id)).toBe(halfOf.get(item.id.replace(/-nofact$/, '')));
    const sizes = sizesOf(slots);
    for (const [target, { even, odd }] of sizes) {
      expect(Math.abs(even - odd), target).toBeLessThan(0.15 * (even + odd));
      expect(Math.min(even, odd), target).toBeGreaterThanOrEqual(MIN_READINGS);
    }
  });

  it('counts each distinct request once for the sufficiency probe: a twin is its original without the fact', () => {
    const probe = slots.filter((s) => s.target === 'sufficiency');
    const distinct = new Set(plan.items.flatMap((p) => [p.given, ...(p.withoutFact ? [p.withoutFact] : [])]));
    expect(new Set(probe.map((s) => s.key)).size).toBe(probe.length);
    expect(probe.length).toBe(distinct.size);
    // Every item with a decisive fact has its twin in the shipped set: the without-fact requests add none.
    expect(probe.length).toBeLessThanOrEqual(items.length);
    // A mode's answer is read on the sufficient items alone.
    expect(slots.filter((s) => s.target !== 'sufficiency').length).toBe(items.filter((i) => i.sufficient !== false).length);
  });
});
