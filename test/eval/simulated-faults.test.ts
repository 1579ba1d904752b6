import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextWithout, splitFacts } from '../../src/decision/facts.js';
import { readSet, type EvalItem } from '../../src/eval/item.js';
import { presentedOrder, SimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import { ROOT } from '../support/cli.js';

/**
 * Each fault of the simulated model moves probability where it says and nowhere
 * else: a log-weight b on some classes multiplies their odds against every other
 * class by e^b, and leaves the odds within each group as they were.
 */

const items = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));
const FAIR: SimulatedFaults = { accuracy: 0.7, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 };
const B = 0.8;

type Of<M extends EvalItem['mode']> = Extract<EvalItem, { mode: M }>;
const pick = <M extends EvalItem['mode']>(mode: M, test: (item: Of<M>) => boolean = () => true): Of<M> =>
  items.find((item): item is Of<M> => item.mode === mode && item.sufficient !== false && test(item as Of<M>))!;
const choice4 = pick('choice', (i) => i.options.length === 4);
const choice3 = pick('choice', (i) => i.options.length === 3);
const noul = pick('noul');
const score = pick('score');
const twin = items.find((i) => i.sufficient === false && i.mode === 'choice' && splitFacts(i.context).length >= 3)!;

const k = (item: EvalItem) => (item.mode === 'choice' ? item.options.length : item.mode === 'score' ? 3 : 2);
const asWritten = (item: EvalItem) => [...Array(k(item)).keys()];
const reversed = (item: EvalItem) => asWritten(item).reverse();
const sample = (faults: Partial<SimulatedFaults>, item: EvalItem, presented: number[], sufficient = true, state?: string) =>
  new SimulatedModel(items, { ...FAIR, ...faults }).distribution(item, sufficient, presented, state);

/** `biased` is `fair` with `gainers` weighted by e^B: every pair's odds compared. */
function expectWeighted(fair: number[], biased: number[], gainers: number[]): void {
  const weight = (i: number) => (gainers.includes(i) ? B : 0);
  for (let i = 0; i < fair.length; i++) {
    for (let j = 0; j < fair.length; j++) {
      const change = biased[i] / biased[j] / (fair[i] / fair[j]);
      expect(Math.log(change), `odds of class ${i} against ${j}`).toBeCloseTo(weight(i) - weight(j), 9);
    }
  }
}

describe('the simulated model', () => {
  it('has every new fault off by default', () => {
    const off: Partial<SimulatedFaults> = {
      lastPlaceBias: 0,
      middlePlaceBias: 0,
      yesBias: 0,
      middleLevelBias: 0,
      guesses: 'fixed',
      guessConfidence: 0.15,
      jitter: 0,
    };
    for (const item of [choice4, choice3, noul, score, twin]) {
      for (const order of [asWritten(item), reversed(item)]) {
        for (const sufficient of [true, false]) expect(sample(off, item, order, sufficient)).toEqual(sample({}, item, order, sufficient));
      }
    }
  });

  it('jitter moves a reading with any change of its context or order, within its bound, and the same input reads the same', () => {
    const item = choice4;
    const a = sample({ jitter: 0.4 }, item, asWritten(item), true, `${item.context} `);
    expect(sample({ jitter: 0.4 }, item, asWritten(item), true, `${item.context} `)).toEqual(a);
    const b = sample({ jitter: 0.4 }, item, asWritten(item), true, item.context);
    const fair = sample({}, item, asWritten(item), true);
    expect(Math.max(...a.map((p, i) => Math.abs(p - b[i])))).toBeGreaterThan(1e-3);
    // Each class's odds against another move by at most e^(2 × 0.4).
    for (let i = 0; i < a.length; i++)
      for (let j = 0; j < a.length; j++) expect(Math.abs(Math.log(a[i] / a[j] / (fair[i] / fair[j])))).toBeLessThanOrEqual(0.8 + 1e-9);
  });

  it('first-place bias weighs the label presented first', () => {
    for (const item of [choice4, noul, score]) {
      for (const order of [asWritten(item), reversed(item)])
        expectWeighted(sample({}, item, order), sample({ positionBias: B }, item, order), [order[0]]);
    }
  });

  it('last-place bias weighs the label presented last, whichever it is', () => {
    for (const item of [choice4, choice3, noul, score]) {
      for (const order of [asWritten(item), reversed(item)]) {
        expectWeighted(sample({}, item, order), sample({ lastPlaceBias: B }, item, order), [order[order.length - 1]]);
      }
    }
  });

  it('middle-place bias weighs every label presented neither first nor last, and none of two', () => {
    for (const [item, order, interior] of [
      [choice4, [0, 1, 2, 3], [1, 2]],
      [choice4, [2, 0, 3, 1], [0, 3]],
      [choice3, [2, 1, 0], [1]],
      [score, [1, 0, 2], [0]],
    ] as const) {
      expectWeighted(sample({}, item, [...order]), sample({ middlePlaceBias: B }, item, [...order]), [...interior]);
    }
    for (const order of [
      [0, 1],
      [1, 0],
    ])
      expect(sample({ middlePlaceBias: B }, noul, order)).toEqual(sample({}, noul, order));
  });

  it('yes bias weighs yes wherever it is presented, and only in yes/no questions', () => {
    for (const order of [
      [0, 1],
      [1, 0],
    ])
      expectWeighted(sample({}, noul, order), sample({ yesBias: B }, noul, order), [0]);
    for (const item of [choice3, score]) expect(sample({ yesBias: B }, item, asWritten(item))).toEqual(sample({}, item, asWritten(item)));
  });

  it("middle-level bias weighs a score's middle level wherever it is presented, and only in score questions", () => {
    for (const order of [
      [0, 1, 2],
      [2, 1, 0],
      [1, 0, 2],
      [0, 2, 1],
    ])
      expectWeighted(sample({}, score, order), sample({ middleLevelBias: B }, score, order), [1]);
    for (const item of [choice3, noul])
      expect(sample({ middleLevelBias: B }, item, asWritten(item))).toEqual(sample({}, item, asWritten(item)));
  });

  it('a temperature above 1 is underconfidence: the same ranking, each reading flattened as p^(1/T)', () => {
    for (const item of [choice4, noul, score]) {
      const fair = sample({}, item, asWritten(item));
      const timid = sample({ temperature: 2 }, item, asWritten(item));
      const root = fair.map((p) => Math.sqrt(p));
      const sum = root.reduce((a, b) => a + b, 0);
      timid.forEach((p, i) => expect(p).toBeCloseTo(root[i] / sum, 12));
      expect(timid.indexOf(Math.max(...timid))).toBe(fair.indexOf(Math.max(...fair)));
      expect(Math.max(...timid)).toBeLessThan(Math.max(...fair));
    }
  });

  describe('on a context lacking the deciding fact', () => {
    // The twin's context, and each context a stress check makes of it by cutting one more fact.
    const states = [twin.context, ...splitFacts(twin.context).map((fact) => contextWithout(twin.context, fact))];
    const top = (p: number[]) => p.indexOf(Math.max(...p));

    it('guesses once per item by default, whatever else is cut; shifting guesses follow the facts shown', () => {
      const fixed = states.map((state) => sample({}, twin, asWritten(twin), false, state));
      for (const p of fixed) expect(p).toEqual(fixed[0]);
      const shifting = states.map((state) => sample({ guesses: 'shifting' }, twin, asWritten(twin), false, state));
      expect(new Set(shifting.map(top)).size).toBeGreaterThan(1);
      // Each context keeps its own guess: the same text, the same answer.
      expect(sample({ guesses: 'shifting' }, twin, asWritten(twin), false, states[1])).toEqual(shifting[1]);
      // A context holding the deciding fact is read, not guessed, either way.
      expect(sample({ guesses: 'shifting' }, choice4, asWritten(choice4), true, 'another text')).toEqual(
        sample({}, choice4, asWritten(choice4)),
      );
    });

    it('guesses as surely as guessConfidence says: 0.15 above uniform by default, confident if asked', () => {
      const n = k(twin);
      expect(Math.max(...sample({}, twin, asWritten(twin), false))).toBeCloseTo(1 / n + (1 - 1 / n) * 0.15, 12);
      const sure = sample({ guessConfidence: 0.9 }, twin, asWritten(twin), false);
      expect(Math.max(...sure)).toBeCloseTo(1 / n + (1 - 1 / n) * 0.9, 12);
      expect(top(sure)).toBe(top(sample({}, twin, asWritten(twin), false)));
      expect(sample({ guessConfidence: 0.9 }, choice4, asWritten(choice4))).toEqual(sample({}, choice4, asWritten(choice4)));
    });
  });

  it('reads the presented order off the System One question: a yes/no question may present No first', () => {
    expect(presentedOrder(noul, { type: 'noul', criteria: { true: 'Yes', false: 'No' } })).toEqual([0, 1]);
    expect(presentedOrder(noul, { type: 'noul', criteria: { false: 'No', true: 'Yes' } })).toEqual([1, 0]);
    expect(presentedOrder(noul, { type: 'noul' })).toEqual([0, 1]);
    const options = [...choice3.options];
    expect(
      presentedOrder(choice3, { type: 'choice', criteria: Object.fromEntries([options[2], options[0], options[1]].map((o) => [o, null])) }),
    ).toEqual([2, 0, 1]);
    expect(presentedOrder(score, { type: 'score', criteria: [...score.levels].reverse() })).toEqual([2, 1, 0]);
  });
});
