import { describe, expect, it } from 'vitest';
import { Stress } from '../../src/contract/answer.js';
import type { Fact } from '../../src/decision/facts.js';
import { type Reading, weigh } from '../../src/decision/outcome.js';
import { compare, pivotOf, stressOf } from '../../src/decision/stress.js';

const labels = ['Rust', 'Go', 'TypeScript'];
const choice = (...p: number[]) => weigh({ mode: 'choice', labels, p });
const noul = (yes: number) => weigh({ mode: 'noul', yes } satisfies Reading);
const fact = (text: string): Fact => ({ text, start: 0, end: text.length });

describe('compare', () => {
  it('agrees when the top option is the same and measures the shift as total variation', () => {
    expect(compare(choice(0.5, 0.3, 0.2), choice(0.4, 0.35, 0.25))).toEqual({ agrees: true, shift: 0.1 });
    expect(compare(choice(0.5, 0.3, 0.2), choice(0.2, 0.5, 0.3))).toEqual({ agrees: false, shift: 0.3 });
  });

  it('breaks a tie at the top by request order on both sides', () => {
    expect(compare(choice(0.4, 0.4, 0.2), choice(0.45, 0.35, 0.2)).agrees).toBe(true);
    expect(compare(choice(0.4, 0.4, 0.2), choice(0.35, 0.45, 0.2)).agrees).toBe(false);
  });

  it('compares noul answers by their side of 0.5, exactly 0.5 being a side of its own', () => {
    expect(compare(noul(0.9), noul(0.51))).toEqual({ agrees: true, shift: 0.39 });
    expect(compare(noul(0.2), noul(0.49))).toEqual({ agrees: true, shift: 0.29 });
    expect(compare(noul(0.51), noul(0.49)).agrees).toBe(false);
    expect(compare(noul(0.5), noul(0.5)).agrees).toBe(true);
    expect(compare(noul(0.5), noul(0.5001))).toEqual({ agrees: false, shift: 0.0001 });
    expect(compare(noul(0.4999), noul(0.5)).agrees).toBe(false);
  });
});

describe('stressOf', () => {
  const base = choice(0.6, 0.3, 0.1);
  const facts = ['Four engineers.', 'Two know Rust.', 'Deadline in March.', 'Budget is small.'].map(fact);

  it('lists the reversed check first, then one check per fact, and computes agreement and pivot', () => {
    const stress = stressOf(base, choice(0.55, 0.35, 0.1), [
      { fact: facts[0], weighed: choice(0.6, 0.3, 0.1) },
      { fact: facts[1], weighed: choice(0.25, 0.5, 0.25) },
      { fact: facts[2], weighed: choice(0.5, 0.3, 0.2) },
      { fact: facts[3], weighed: choice(0.55, 0.3, 0.15) },
    ]);
    expect(Stress.parse(stress)).toEqual(stress);
    expect(stress.checks.map((c) => [c.kind, c.agrees, c.shift])).toEqual([
      ['reversed', true, 0.05],
      ['without-fact', true, 0],
      ['without-fact', false, 0.35],
      ['without-fact', true, 0.1],
      ['without-fact', true, 0.05],
    ]);
    expect(stress.checks[2]).toMatchObject({ factIndex: 1, fact: 'Two know Rust.', result: { selected: 'Go' } });
    expect(stress.agreement).toBe(0.8);
    expect(stress.pivot).toEqual({ factIndex: 1, fact: 'Two know Rust.', shift: 0.35, flips: true });
  });

  it('counts a disagreeing reversed check and rounds the agreement', () => {
    const stress = stressOf(base, choice(0.3, 0.6, 0.1), [
      { fact: facts[0], weighed: choice(0.6, 0.3, 0.1) },
      { fact: facts[1], weighed: choice(0.6, 0.3, 0.1) },
    ]);
    expect(stress.agreement).toBe(0.6667);
    // Leaving out either fact changes nothing: no single fact decides it.
    expect(stress.pivot).toBeNull();
  });

  it('names no pivot when no fact flips the answer or shifts it by the threshold (0.1), and one at the threshold', () => {
    const below = stressOf(base, base, [
      { fact: facts[0], weighed: choice(0.55, 0.35, 0.1) },
      { fact: facts[1], weighed: choice(0.62, 0.28, 0.1) },
    ]);
    expect(below.checks.slice(1).map((c) => c.shift)).toEqual([0.05, 0.02]);
    expect(below.pivot).toBeNull();
    const at = stressOf(base, base, [
      { fact: facts[0], weighed: choice(0.5, 0.4, 0.1) },
      { fact: facts[1], weighed: base },
    ]);
    expect(at.pivot).toMatchObject({ factIndex: 0, shift: 0.1, flips: false });
    // A flip of an answer that led clearly names the pivot under the threshold too.
    const clear = choice(0.5, 0.34, 0.16);
    const flip = stressOf(clear, clear, [
      { fact: facts[0], weighed: choice(0.41, 0.43, 0.16) },
      { fact: facts[1], weighed: clear },
    ]);
    expect(flip.pivot).toMatchObject({ factIndex: 0, shift: 0.09, flips: true });
  });

  it('names no pivot for a near-tie tipped by a few hundredths: the answer did not lead clearly', () => {
    const tipped = stressOf(noul(0.52), noul(0.52), [
      { fact: facts[0], weighed: noul(0.48) },
      { fact: facts[1], weighed: noul(0.52) },
    ]);
    expect(tipped.checks[1]).toMatchObject({ agrees: false, shift: 0.04 });
    expect(tipped.pivot).toBeNull();
  });

  it("names no pivot within the engine's own noise: a fact moving the answer no more than the reversed order does", () => {
    const reversed = choice(0.5, 0.4, 0.1); // 0.1 from the base
    const within = stressOf(base, reversed, [
      { fact: facts[0], weighed: choice(0.5, 0.4, 0.1) },
      { fact: facts[1], weighed: choice(0.55, 0.35, 0.1) },
    ]);
    expect(within.checks.map((c) => c.shift)).toEqual([0.1, 0.1, 0.05]);
    expect(within.pivot).toBeNull();
    // 1.5 times the reversed check's shift, and no more: not yet beyond it.
    expect(stressOf(base, reversed, [{ fact: facts[0], weighed: choice(0.45, 0.45, 0.1) }]).pivot).toBeNull();
    const beyond = stressOf(base, reversed, [{ fact: facts[0], weighed: choice(0.42, 0.38, 0.2) }]);
    expect(beyond.pivot).toMatchObject({ factIndex: 0, shift: 0.18, flips: false });
  });

  it('names no pivot when another fact moves the answer about as far: no single fact decides it', () => {
    const two = stressOf(base, base, [
      { fact: facts[0], weighed: choice(0.25, 0.5, 0.25) },
      { fact: facts[1], weighed: choice(0.3, 0.5, 0.2) },
      { fact: facts[2], weighed: base },
    ]);
    expect(two.checks.slice(1).map((c) => [c.agrees, c.shift])).toEqual([
      [false, 0.35],
      [false, 0.3],
      [true, 0],
    ]);
    expect(two.pivot).toBeNull();
  });

  it('picks the largest shift, one that need not flip, and none of two equal ones', () => {
    const stress = stressOf(base, base, [
      { fact: facts[0], weighed: choice(0.5, 0.4, 0.1) },
      { fact: facts[1], weighed: choice(0.7, 0.2, 0.1) },
      { fact: facts[2], weighed: choice(0.7, 0.1, 0.2) },
    ]);
    expect(stress.checks.slice(1).map((c) => c.shift)).toEqual([0.1, 0.1, 0.2]);
    expect(stress.pivot).toMatchObject({ factIndex: 2, shift: 0.2, flips: false });
    // Two facts moving it as far: neither alone decides it.
    expect(pivotOf(stress.checks.slice(0, 3), true)).toBeNull();
  });

  it('has no pivot without without-fact checks', () => {
    const stress = stressOf(noul(0.8), noul(0.7), []);
    expect(stress).toEqual({
      agreement: 1,
      checks: [{ kind: 'reversed', agrees: true, shift: 0.1, result: { yesProbability: 0.7 } }],
      pivot: null,
    });
  });
});
