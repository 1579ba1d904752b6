import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChoiceQuestion } from '../../../src/engine/engine.js';
import { createLocalEngine, type LocalEngine } from '../../../src/engine/local/local.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { TINY_MODEL } from '../../support/service.js';

/**
 * A choice of more options than one reading letters (20), on the tiny random-weights
 * model: read in groups, P(option) = P(group) · P(option | group), where the second
 * factor is the group's options asked alone. So what the engine answers for a group's
 * options, renormalised over the group, must be exactly its answer to those options
 * asked as a question of their own, label by label.
 */
describe.skipIf(!LOCAL_RUNTIME)(`local engine: more options than one reading letters ${NEEDS_LOCAL_RUNTIME}`, () => {
  let engine: LocalEngine;
  beforeAll(async () => {
    engine = await createLocalEngine({ modelPath: TINY_MODEL });
  });
  afterAll(() => engine?.close?.());

  const STATE = 'The ticket says the invoice was paid twice.\nThe customer wrote three times this week.';
  /** `n` options, integer-like names and descriptions among them, in the order given. */
  const options = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      label: i % 50 === 7 ? String(2000 - i) : `queue ${i + 1}`,
      description: i % 3 ? null : `team ${i}`,
    }));
  const choice = (criteria: ChoiceQuestion['criteria']): ChoiceQuestion => ({
    type: 'choice',
    instructions: 'Which queue should the ticket go to?',
    criteria,
  });
  const ask = async (question: ChoiceQuestion) => {
    const reply = await engine.ask(STATE, { q: question }, new AbortController().signal);
    return { p: (reply.answers.q as { probabilities: Record<string, number> }).probabilities, inputTokens: reply.inputTokens! };
  };
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

  it.each([
    [21, [11, 10]],
    [255, [...Array(8).fill(20), ...Array(5).fill(19)]],
  ])('reads %i options in groups of %j: each group split exactly as its options asked alone', async (n, sizes) => {
    const all = choice(options(n));
    const { p } = await ask(all);
    expect(Object.keys(p).sort()).toEqual(all.criteria.map((o) => o.label).sort());
    expect(Math.abs(sum(Object.values(p)) - 1)).toBeLessThan(1e-9);

    const shares: number[] = [];
    let start = 0;
    for (const size of sizes) {
      const members = all.criteria.slice(start, start + size);
      start += size;
      const alone = await ask(choice(members));
      const share = sum(members.map((o) => p[o.label]));
      shares.push(share);
      // Equal up to the float noise of llama.cpp batching the readings differently (up to
      // about 1 % of a probability over 255 options' long prompts): within 5 % of each
      // other, or 1e-4 apart; options in a wrong order or a wrong group miss by far more.
      for (const { label } of members)
        expect(Math.abs(p[label] / share - alone.p[label]), label).toBeLessThan(Math.max(1e-4, alone.p[label] / 20));
    }
    // The groups' shares are read off the group reading, not assumed from their sizes.
    expect(Math.max(...shares.map((share, g) => Math.abs(share - sizes[g] / n)))).toBeGreaterThan(1e-4);
  });

  it('reads 20 options in one reading, and 21 in three: the group reading on top of its groups asked alone', async () => {
    const twenty = options(20);
    const one = await ask(choice(twenty));
    const halves = [await ask(choice(twenty.slice(0, 10))), await ask(choice(twenty.slice(10)))];
    // One prompt of 20 options is shorter than two of 10, each repeating the question and state.
    expect(one.inputTokens).toBeLessThan(halves[0].inputTokens + halves[1].inputTokens);

    const twentyOne = options(21);
    const grouped = await ask(choice(twentyOne));
    const groups = [await ask(choice(twentyOne.slice(0, 11))), await ask(choice(twentyOne.slice(11)))];
    // Every prompt counted: the groups' own, and on top of them the one showing all 21 under two letters.
    expect(grouped.inputTokens).toBeGreaterThan(groups[0].inputTokens + groups[1].inputTokens);
  });
});
