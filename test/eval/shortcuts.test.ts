import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSet, type EvalItem } from '../../src/eval/item.js';
import { ShortcutReport, shortcutBaselines, type Baseline } from '../../src/eval/shortcuts.js';
import { ROOT } from '../support/cli.js';

/** Shortcut baselines: rules that answer an item without reading it properly, scored per family. */

let next = 0;
const id = () => `t-${++next}`;

function choice(options: string[], answer: string, context: string, extra: Partial<EvalItem> = {}): EvalItem {
  return { id: id(), mode: 'choice', question: 'Which one should we pick?', context, options, answer, ...extra } as EvalItem;
}
function noul(answer: boolean, context: string, extra: Partial<EvalItem> = {}): EvalItem {
  return { id: id(), mode: 'noul', question: 'Should we do it?', context, answer, ...extra } as EvalItem;
}
function score(answer: string, context: string, extra: Partial<EvalItem> = {}): EvalItem {
  return {
    id: id(),
    mode: 'score',
    question: 'How urgent is it?',
    context,
    levels: ['low', 'medium', 'high'],
    answer,
    ...extra,
  } as EvalItem;
}

/** The baseline of the only family of `items`, complete items or twins. */
function only(items: EvalItem[], kind: 'complete' | 'twins' = 'complete'): Baseline {
  const report = shortcutBaselines(items);
  expect(report.families).toHaveLength(1);
  return report.families[0][kind]!;
}

const FILLER = 'Nothing else is known about them.';

describe('choice rules', () => {
  it('position: first, last, and the interior options (both of two)', () => {
    const items = [
      choice(['Alpha', 'Bravo', 'Charlie', 'Delta'], 'Alpha', FILLER),
      choice(['Alpha', 'Bravo', 'Charlie', 'Delta'], 'Charlie', FILLER),
      choice(['Alpha', 'Bravo'], 'Bravo', FILLER),
    ];
    const { rules, chance } = only(items);
    expect(chance).toBeCloseTo((1 / 4 + 1 / 4 + 1 / 2) / 3, 4);
    expect(rules.first).toBeCloseTo(1 / 3, 4);
    expect(rules.last).toBeCloseTo(1 / 3, 4);
    // Charlie is one of two interior options (1/2); both of two options are "middle" (1/2).
    expect(rules.middle).toBeCloseTo((0 + 1 / 2 + 1 / 2) / 3, 4);
  });

  it('length: the longest and the shortest option, ties sharing the credit', () => {
    const { rules } = only([choice(['short', 'a much longer option', 'medium one'], 'a much longer option', FILLER)]);
    expect(rules.longest).toBe(1);
    expect(rules.shortest).toBe(0);
    const tie = only([choice(['abcd', 'wxyz', 'ab'], 'wxyz', FILLER)]);
    expect(tie.rules.longest).toBe(0.5);
  });

  it('mentions: the sentences naming each option, by its full text or else by a word no other option has', () => {
    const context = 'Harbor Line is cheap. Harbor Line is slow. The kestrel option is fast. Nothing names the third.';
    const items = [choice(['Harbor Line', 'Kestrel Cargo', 'Swift Parcel'], 'Swift Parcel', context)];
    const { rules } = only(items);
    // Harbor Line twice (full text), Kestrel Cargo once ("kestrel"), Swift Parcel never.
    expect(rules['most-mentioned']).toBe(0);
    expect(rules['least-mentioned']).toBe(1);
  });

  it('overlap: the option sharing most words of four letters or more with the question and context', () => {
    const items = [
      choice(['green painted door', 'blue door', 'red gate'], 'green painted door', 'The painted door is green. The gate is red.'),
    ];
    expect(only(items).rules['most-overlap']).toBe(1);
  });

  it("numbers: an option's own number, else the first number of the first sentence naming it", () => {
    const context = 'Orbit quotes $1,200 and takes 4 days. Lantern quotes $300 and takes 9 days. Meridian quotes $2,500 and takes 2 days.';
    const items = [choice(['Orbit', 'Lantern', 'Meridian', 'Plan 700'], 'Orbit', context)];
    const { rules } = only(items);
    // Numbers: 1200, 300, 2500, 700 (its own).
    expect(rules['lowest-number']).toBe(0);
    expect(rules['second-lowest-number']).toBe(0);
    expect(rules['second-highest-number']).toBe(1);
    expect(rules['highest-number']).toBe(0);
  });

  it('a rule that cannot apply abstains, and the item scores chance', () => {
    // No numbers anywhere: the number rules abstain. One number only: still fewer than two.
    const items = [choice(['Alpha', 'Bravo', 'Charlie'], 'Alpha', FILLER), choice(['Alpha 3', 'Bravo', 'Charlie'], 'Alpha 3', FILLER)];
    const { rules, chance } = only(items);
    for (const rule of ['lowest-number', 'second-lowest-number', 'highest-number', 'second-highest-number'])
      expect(rules[rule], rule).toBeCloseTo(chance, 4);
    // Two numbers are enough for lowest and highest, not for the second rules.
    const two = only([choice(['Plan 3', 'Plan 9', 'Charlie'], 'Plan 3', FILLER)]);
    expect(two.rules['lowest-number']).toBe(1);
    expect(two.rules['second-lowest-number']).toBeCloseTo(1 / 3, 4);
  });

  it('question only: the answer most often labelled among the other items asking the same of the same options', () => {
    const same = (answer: string) => choice(['Alpha', 'Bravo'], answer, FILLER);
    // Left out, each item sees only the other, whose answer differs: a rule that saw its own label would tie.
    expect(only([same('Alpha'), same('Bravo')]).rules['question-only']).toBe(0);
    expect(only([same('Alpha'), same('Alpha')]).rules['question-only']).toBe(1);
    // Another question, or other options, is no evidence: the rule abstains at chance.
    const other = choice(['Alpha', 'Bravo'], 'Alpha', FILLER, { question: 'Which one is older?' });
    expect(only([same('Alpha'), other]).rules['question-only']).toBe(0.5);
  });
});

describe('rules that learn a threshold', () => {
  it('learn a cut on one number from the other items of the family and apply it to the item', () => {
    const items = [1, 2, 3].map((n) => noul(true, `The count is ${n}.`)).concat([7, 8, 9].map((n) => noul(false, `The count is ${n}.`)));
    const { rules } = only(items);
    expect(rules['first-number']).toBe(1);
    expect(rules['largest-number']).toBe(1);
    expect(rules['always-yes']).toBe(0.5);
    // Every context is one sentence: that count can only learn the other items' majority,
    // which, the answers being balanced, is always the other answer.
    expect(rules['sentence-count']).toBe(0);
  });

  it('leave the item out: two items alike but for their answers teach each other the wrong answer', () => {
    const items = [noul(true, 'The count is 5.'), noul(false, 'The count is 5.')];
    // A rule fitted with the item itself would tie and score 0.5.
    expect(only(items).rules['first-number']).toBe(0);
  });

  it('score items get two cuts, levels in order or reversed', () => {
    const items = [
      ...[10, 11, 12].map((n) => score('high', `Only ${n} left.`)),
      ...[50, 51, 52].map((n) => score('medium', `Only ${n} left.`)),
      ...[90, 91, 92].map((n) => score('low', `Only ${n} left.`)),
    ];
    const { rules, chance } = only(items);
    expect(chance).toBeCloseTo(1 / 3, 4);
    expect(rules['first-number']).toBe(1);
    expect(rules['always-low']).toBeCloseTo(1 / 3, 4);
  });

  it("twins learn from twins: an item's original never teaches its twin", () => {
    const original = noul(true, 'The count is 5. The rule is simple.', { family: 'f' });
    const twin = noul(true, 'The count is 5.', { id: `${original.id}-nofact`, family: 'f', sufficient: false });
    const { families } = shortcutBaselines([original, twin]);
    // The twin is alone among twins: nothing to learn from, so it abstains at chance.
    expect(families[0].twins!.rules['first-number']).toBe(0.5);
    expect(families[0].complete!.n).toBe(1);
    expect(families[0].twins!.n).toBe(1);
  });
});

describe('the report', () => {
  it('pools items without a family per mode, rounds to 4 decimals, and summarises each mode for printing', () => {
    const items = [
      choice(['Alpha', 'Bravo', 'Charlie'], 'Alpha', FILLER, { family: 'letters' }),
      choice(['Alpha', 'Bravo', 'Charlie'], 'Bravo', FILLER, { family: 'letters' }),
      choice(['Alpha', 'Bravo', 'Charlie'], 'Alpha', FILLER),
      noul(true, 'The count is 5.'),
    ];
    const report = ShortcutReport.parse(shortcutBaselines(items));
    expect(report.families.map((f) => [f.family, f.mode])).toEqual([
      ['(no family) choice', 'choice'],
      ['letters', 'choice'],
      ['(no family) noul', 'noul'],
    ]);
    expect(report.families[1].complete!.chance).toBe(0.3333);
    expect(report.families[1].twins).toBeNull();
    // Over all three choice items the first option is right twice: the best rule, beside chance.
    expect(report.modes.choice).toMatchObject({ n: 3, chance: 0.3333, best: { rule: 'first', accuracy: 0.6667 } });
    expect(report.modes.choice!.worstFamily).toMatchObject({ family: '(no family) choice', rule: 'first', accuracy: 1 });
    expect(report.modes.score).toBeNull();
  });
});

describe('the shipped set', () => {
  const report = shortcutBaselines(readSet(path.join(ROOT, 'eval', 'decisions.jsonl')));
  /** Every rule that beats chance by more than 5 points, on complete items or twins. */
  const beaten = (families: typeof report.families) =>
    families.flatMap((f) =>
      (['complete', 'twins'] as const).flatMap((kind) => {
        const b = f[kind];
        if (!b) return [];
        return Object.entries(b.rules)
          .filter(([, accuracy]) => accuracy > b.chance + 0.05)
          .map(([rule, accuracy]) => `${f.family} ${kind}: ${rule} ${accuracy} against chance ${b.chance}`);
      }),
    );

  it('lets no shortcut beat chance by more than 5 points on any templated family, complete items or twins', () => {
    const templated = report.families.filter((f) => !f.family.startsWith('(no family)'));
    expect(templated.length).toBeGreaterThanOrEqual(12);
    expect(beaten(templated)).toEqual([]);
  });

  it('lets no shortcut beat chance by more than 5 points on the hand-written items of any mode', () => {
    expect(beaten(report.families.filter((f) => f.family.startsWith('(no family)')))).toEqual([]);
  });
});
