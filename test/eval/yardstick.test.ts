import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { difference, interval } from '../../src/eval/bootstrap.js';
import { figuresOf } from '../../src/eval/figures.js';
import { gating } from '../../src/eval/gating.js';
import { splitHalves } from '../../src/eval/halves.js';
import { type EvalItem, isSufficient, readSet } from '../../src/eval/item.js';
import { topChanged } from '../../src/eval/metrics.js';
import { ordersOf, planEval } from '../../src/eval/plan.js';
import type { ItemRecord } from '../../src/eval/records.js';
import { stratifiedSample } from '../../src/eval/sample.js';
import { ROOT } from '../support/cli.js';

/** The yardstick's parts that decide what a figure means: orders, halves, samples, intervals, ties, gating. */

const SET: EvalItem[] = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));

const record = (over: Partial<ItemRecord> & Pick<ItemRecord, 'mode' | 'answer'>): ItemRecord => ({
  id: over.id ?? 'x',
  half: 'even',
  sufficient: true,
  given: null,
  orders: [],
  withoutFact: null,
  withoutFactIsItem: false,
  ...over,
});
const reading = (p: number[], contextSufficiency = 0.9) => ({ p, contextSufficiency, needsContext: contextSufficiency < 0.5 });

describe('the orders an item is asked in', () => {
  it('reversed, then two distinct random orders that are neither as written nor reversed; the same for an item and its twin', () => {
    const item = SET.find((i) => i.mode === 'choice' && i.options.length === 4 && i.decisiveFact)!;
    const orders = ordersOf(item, 2, true);
    expect(orders.map((o) => o.variant)).toEqual(['reversed', 'permuted', 'permuted']);
    expect(orders[0].order).toEqual([3, 2, 1, 0]);
    const seen = new Set(orders.map((o) => o.order.join()));
    expect(seen.size).toBe(3);
    expect(seen.has('0,1,2,3')).toBe(false);
    for (const { order } of orders) expect([...order].sort()).toEqual([0, 1, 2, 3]);
    const twin = SET.find((i) => i.id === `${item.id}-nofact`)!;
    expect(ordersOf(twin, 2, true)).toEqual(orders);
    expect(ordersOf(item, 2, true)).toEqual(orders);
  });

  it('two options have only the reversed order; yes/no is asked No first only where the engine runs here', () => {
    const two = SET.find((i) => i.mode === 'choice' && i.options.length === 2)!;
    expect(ordersOf(two, 2, true).map((o) => o.order)).toEqual([[1, 0]]);
    const noul = SET.find((i) => i.mode === 'noul')!;
    expect(ordersOf(noul, 2, true)).toEqual([{ variant: 'no-first', order: [1, 0] }]);
    expect(ordersOf(noul, 2, false)).toEqual([]);
  });

  it('a plan asks each distinct request once, the twin being its original without the fact, and stress depth asks no other orders', () => {
    const item = SET.find((i) => i.mode === 'score' && i.decisiveFact)!;
    const twin = SET.find((i) => i.id === `${item.id}-nofact`)!;
    const plan = planEval([item, twin], { noFirst: true });
    expect(plan.items[0].withoutFact).toBe(plan.items[1].given);
    // Item: as written, 3 orders, without the fact (= the twin as written); twin: 3 orders of its own.
    expect(plan.asks).toHaveLength(8);
    expect(planEval([item, twin], { depth: 'stress' }).asks).toHaveLength(2);
  });
});

describe('the halves of the set', () => {
  const halves = splitHalves(SET);
  it('keep an item and its twin, and all the siblings of one family, on one side', () => {
    for (const item of SET) {
      if (item.id.endsWith('-nofact')) expect(halves.get(item.id), item.id).toBe(halves.get(item.id.replace(/-nofact$/, '')));
    }
    const byFamily = new Map<string, Set<string>>();
    for (const item of SET.filter((i) => i.family))
      byFamily.set(item.family!, (byFamily.get(item.family!) ?? new Set()).add(halves.get(item.id)!));
    for (const [family, sides] of byFamily) expect(sides.size, family).toBe(1);
  });

  it('hold between 40 and 60 % of each mode', () => {
    for (const mode of ['choice', 'noul', 'score']) {
      const complete = SET.filter((i) => i.mode === mode && isSufficient(i));
      const even = complete.filter((i) => halves.get(i.id) === 'even').length / complete.length;
      expect(even, mode).toBeGreaterThan(0.4);
      expect(even, mode).toBeLessThan(0.6);
    }
  });
});

describe('--limit: a stratified sample', () => {
  it('draws the right answers first, in between and last about equally, twins with their originals, the same every time', () => {
    const sample = stratifiedSample(SET, 60);
    expect(sample).toHaveLength(60);
    expect(stratifiedSample(SET, 60)).toEqual(sample);
    const ids = new Set(sample.map((i) => i.id));
    for (const item of sample.filter((i) => i.id.endsWith('-nofact'))) expect(ids.has(item.id.replace(/-nofact$/, '')), item.id).toBe(true);
    const choice = sample.filter((i): i is Extract<EvalItem, { mode: 'choice' }> => i.mode === 'choice' && isSufficient(i));
    const places = choice.map((i) => {
      const at = i.options.indexOf(i.answer);
      return at === 0 ? 'first' : at === i.options.length - 1 ? 'last' : 'middle';
    });
    for (const place of ['first', 'middle', 'last'])
      expect(places.filter((p) => p === place).length, place).toBeGreaterThanOrEqual(Math.floor(choice.length / 3) - 1);
    const modes = new Set(sample.map((i) => i.mode));
    expect(modes.size).toBe(3);
  });
});

describe('ties', () => {
  it('values within 1e-9 tie, and a tie that keeps one of its members is not a change of answer', () => {
    expect(topChanged([0.5, 0.5, 0], [0.5 + 1e-12, 0.5 - 1e-12, 0])).toBe(false);
    expect(topChanged([0.4, 0.4, 0.2], [0.6, 0.3, 0.1])).toBe(false);
    expect(topChanged([0.6, 0.3, 0.1], [0.3, 0.6, 0.1])).toBe(true);
  });

  it("an engine that ignores the content, asked in every order, flips nothing and gets a coin's credit", () => {
    const even = [1 / 3, 1 / 3, 1 / 3].map((x, i) => x + (i - 1) * 1e-13);
    const records = [0, 1, 2].map((answer) =>
      record({
        id: `i${answer}`,
        mode: 'score',
        answer,
        given: reading(even),
        orders: [{ variant: 'reversed', order: [2, 1, 0], p: [...even].reverse() }],
      }),
    );
    const figures = figuresOf(records);
    expect(figures.positionBias.complete.flipRate).toBe(0);
    expect(figures.overall.accuracy).toBeCloseTo(1 / 3, 4);
  });
});

describe('the decisive fact', () => {
  const pair = (id: string, answer: number, given: number[], without: number[]) =>
    record({ id, mode: 'choice', answer, given: reading(given), withoutFact: reading(without, 0.2) });

  it('a near-tie that moves at random changes its answer often but pulls nowhere; a reading of the fact pulls toward the truth', () => {
    // Two readings a hair from a tie, the fact tipping them either way regardless of the answer.
    const noise = [pair('a', 0, [0.51, 0.49], [0.49, 0.51]), pair('b', 0, [0.49, 0.51], [0.51, 0.49])];
    const tipped = figuresOf(noise).decisiveFact;
    expect(tipped.changedRate).toBe(1);
    expect(tipped.pull).toBeCloseTo(0, 3);
    // The fact raises the right answer from a third to 0.8 and from 0.5 to 0.6.
    const read = figuresOf([pair('c', 2, [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]), pair('d', 1, [0.4, 0.6], [0.5, 0.5])]).decisiveFact;
    expect(read.pull).toBeCloseTo((Math.log(0.8 / (1 / 3)) + Math.log(0.6 / 0.5)) / 2, 3);
    // An engine reading the fact the wrong way pulls below 0.
    expect(figuresOf([pair('e', 0, [0.2, 0.8], [0.5, 0.5])]).decisiveFact.pull).toBeLessThan(0);
  });
});

describe('order bias as numbers', () => {
  it('a bias toward the middle place, the middle level and yes each shows as a positive bias against the truth', () => {
    // Three score items, right answers low, middle, high; the engine always puts the middle place on top.
    const records = [0, 1, 2].map((answer) =>
      record({
        id: `s${answer}`,
        mode: 'score',
        answer,
        given: reading([0.2, 0.6, 0.2]),
        orders: [{ variant: 'permuted', order: [1, 0, 2], p: [0.6, 0.2, 0.2] }],
      }),
    );
    const yes = [0, 1].map((answer) =>
      record({
        id: `n${answer}`,
        mode: 'noul',
        answer,
        given: reading([0.8, 0.2]),
        orders: [{ variant: 'no-first', order: [1, 0], p: [0.8, 0.2] }],
      }),
    );
    const bias = figuresOf([...records, ...yes]).positionBias;
    expect(bias.places.middle.top).toBe(1);
    expect(bias.places.middle.stated).toBeCloseTo(0.6, 4);
    expect(bias.places.middle.truth).toBeCloseTo(1 / 3, 4);
    // Each answer's mean over its two orders is 0.4 (0.2 and 0.6, one of them shown in between): shown there it gains 0.2.
    expect(bias.places.middle.bias).toBeCloseTo(0.2, 4);
    expect(bias.places.first.bias).toBeCloseTo(-0.2, 4);
    expect(bias.places.last.bias).toBeCloseTo(0, 4);
    // As written the middle level is on top; in the other order the low level (shown in the middle) is.
    expect(bias.middleLevel).toMatchObject({ n: 6, top: 0.5 });
    expect(bias.middleLevel.truth).toBeCloseTo(1 / 3, 4);
    expect(bias.yes).toMatchObject({ n: 4, stated: 0.8, top: 1, truth: 0.5 });
    expect(bias.yes.bias).toBeCloseTo(0.3, 4);
  });
});

describe('intervals and comparisons', () => {
  it('a seeded bootstrap: the same interval every time, around the figure, wider for fewer items', () => {
    const coin = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const wide = interval(coin.slice(0, 20), meanOf)!;
    const narrow = interval(coin, meanOf)!;
    expect(interval(coin, meanOf)).toEqual(narrow);
    expect(narrow.low).toBeLessThan(0.5);
    expect(narrow.high).toBeGreaterThan(0.5);
    expect(narrow.high - narrow.low).toBeLessThan(wide.high - wide.low);
    expect(interval([], meanOf)).toBeNull();
  });

  it('a paired difference: a real gain differs, the same items read twice do not', () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const better = difference(
      items.map((i) => ({ a: i % 2, b: i % 5 === 0 ? 0 : 1 })),
      (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
    )!;
    expect(better.difference).toBeCloseTo(0.3, 4);
    expect(better.differs).toBe(true);
    const same = difference(
      items.map((i) => ({ a: i % 2, b: i % 2 })),
      (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
    )!;
    expect(same).toMatchObject({ difference: 0, differs: false });
  });
});

describe('gating on confidence', () => {
  it('the lowest cut-point whose covered answers reach the target, and the coverage it keeps', () => {
    // Confidence (normalised peak) 0.8, 0.6, 0.4, 0.2 on two-way answers; right, right, wrong, right.
    const scored = [
      { p: [0.9, 0.1], answer: 0 },
      { p: [0.8, 0.2], answer: 0 },
      { p: [0.7, 0.3], answer: 1 },
      { p: [0.6, 0.4], answer: 0 },
    ];
    const gate = gating(scored, 0.75);
    expect(gate.target).toMatchObject({ accuracy: 0.75, cut: 0.2, coverage: 1, reached: 0.75 });
    expect(gating(scored, 0.9).target).toMatchObject({ cut: 0.6, coverage: 0.5, reached: 1 });
    expect(gating([{ p: [0.5, 0.5], answer: 1 }], 0.9).target).toMatchObject({ cut: null, coverage: null });
    expect(gate.riskCoverage.find((row) => row.cut === 0.5)).toEqual({ cut: 0.5, coverage: 0.5, accuracy: 1 });
  });
});
