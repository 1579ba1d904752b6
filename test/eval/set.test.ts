import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { contextWithoutDecisiveFact, isSufficient, readSet, type EvalItem } from '../../src/eval/item.js';
import { assertBuilt, ROOT } from '../support/cli.js';

/** The labelled set shipped in the package: every line an item the API would accept, and the promised mix. */

const SET = path.join(ROOT, 'eval', 'decisions.jsonl');
const items: EvalItem[] = readSet(SET);
const base = items.filter(isSufficient);
const twins = items.filter((item) => !isSufficient(item));
const count = <T>(list: readonly T[], key: (t: T) => string) =>
  list.reduce<Record<string, number>>((acc, t) => {
    acc[key(t)] = (acc[key(t)] ?? 0) + 1;
    return acc;
  }, {});

describe('the shipped labelled set', () => {
  beforeAll(assertBuilt);

  it('holds at least 300 valid items, 150 of them hand-written and 60 twins without their deciding fact', () => {
    expect(items.length).toBeGreaterThanOrEqual(300);
    expect(base.filter((item) => item.id.startsWith('hw-')).length).toBeGreaterThanOrEqual(150);
    expect(twins.length).toBeGreaterThanOrEqual(60);
  });

  it('gives every item with a decisive fact a twin: the same question and answer, the fact cut out, marked insufficient', () => {
    const byId = new Map(items.map((item) => [item.id, item]));
    for (const item of items.filter((i) => i.decisiveFact !== undefined)) {
      const twin = byId.get(`${item.id}-nofact`);
      expect(twin, item.id).toBeDefined();
      const { id, context, decisiveFact, sufficient, ...same } = item;
      const { id: _id, context: twinContext, sufficient: twinSufficient, ...twinSame } = twin!;
      expect(twinSame, item.id).toEqual(same);
      expect(twinContext).toBe(contextWithoutDecisiveFact(item));
      expect(twinContext).not.toContain(decisiveFact);
      expect(twinSufficient).toBe(false);
    }
  });

  it('makes every templated twin truly unanswerable: its request, without the fact, is also the twin of items with other answers', () => {
    const request = (item: EvalItem) =>
      JSON.stringify([
        item.mode,
        item.question,
        item.context,
        item.mode === 'choice' ? item.options : item.mode === 'score' ? item.levels : null,
      ]);
    const answers = new Map<string, Set<string>>();
    for (const twin of twins) answers.set(request(twin), (answers.get(request(twin)) ?? new Set()).add(String(twin.answer)));
    const templated = twins.filter((twin) => twin.id.startsWith('gen-'));
    expect(templated.length).toBeGreaterThan(0);
    for (const twin of templated) expect(answers.get(request(twin))!.size, twin.id).toBeGreaterThanOrEqual(2);
  });

  it('mixes modes, option counts, answer places and domains', () => {
    const modes = count(base, (item) => item.mode);
    for (const mode of ['choice', 'noul', 'score']) expect(modes[mode], mode).toBeGreaterThanOrEqual(60);
    const choices = base.filter((item): item is Extract<EvalItem, { mode: 'choice' }> => item.mode === 'choice');
    expect(Object.keys(count(choices, (item) => String(item.options.length))).sort()).toEqual(['2', '3', '4', '5', '6']);
    // The right option stands first, last or in between about as often as chance puts it there
    // (first and last 1/k of the time each, k options), so a position bias neither helps nor hurts.
    const places = count(choices, (item) => {
      const at = item.options.indexOf(item.answer);
      return at === 0 ? 'first' : at === item.options.length - 1 ? 'last' : 'middle';
    });
    const byChance = choices.reduce((sum, item) => sum + 1 / item.options.length, 0) / choices.length;
    const expected: Record<string, number> = { first: byChance, last: byChance, middle: 1 - 2 * byChance };
    for (const place of ['first', 'middle', 'last'])
      expect(Math.abs(places[place] / choices.length - expected[place]), place).toBeLessThan(0.05);
    const yes = base.filter((item) => item.mode === 'noul' && item.answer === true).length;
    expect(yes / modes.noul).toBeGreaterThan(0.4);
    expect(yes / modes.noul).toBeLessThan(0.6);
    const domains = new Set(base.filter((item) => item.id.startsWith('hw-')).map((item) => item.id.split('-')[1]));
    expect([...domains].sort()).toEqual([
      'education',
      'energy',
      'engineering',
      'everyday',
      'farming',
      'hospitality',
      'insurance',
      'logistics',
      'operations',
      'product',
      'publicservices',
      'purchasing',
      'records',
      'scheduling',
      'sport',
    ]);
  });

  it('is what its generator writes, with a fixed seed', () => {
    const check = spawnSync(process.execPath, [path.join(ROOT, 'eval', 'generate.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(check.status, check.stderr + check.stdout).toBe(0);
  });
});
