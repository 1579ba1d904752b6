import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChoiceQuestion, Engine } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { mapBounded } from '../../src/decision/bounded.js';
import { cut, manyOptionAnswer, manyOptionSet, unlimitedReading, type ManyOptionItem } from '../fakes/many-option-model.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { scaled } from '../support/time.js';
import { noDeadline } from './helpers.js';

/**
 * How honest the openai engine's grouped reading of many options is, measured against
 * the one-call reading on a set built for it: 200 items over catalogues of 255 queues,
 * each with one right queue, near-misses and noise, answered by a simulated model with
 * the faults that part the two readings (test/fakes/many-option-model.ts).
 *
 * - The same 20 options of each item read in one call (the engine's reading up to 20
 *   options), in two groups of 10 and in four groups of 5, and in two groups in both
 *   orders averaged (debiasing `reverse`): accuracy, log loss of the right option, and
 *   how far each distribution lies from the one-call one.
 * - The whole catalogue of 255 read as the engine reads it, in 13 groups of 19 or 20,
 *   once and in both orders, against what one call over all 255 would read were there
 *   no 20-token limit (computed in the simulated model: no engine can ask it).
 *
 * docs/api.md (Engines) quotes the figures this prints.
 */

const ITEMS = 200;
const SET = manyOptionSet(ITEMS, 255, 20_260_924);

type Reading = Record<string, number>;
interface Figures {
  accuracy: number;
  logLoss: number;
  /** Mean total variation distance from the one-call reading of the same options (when there is one). */
  distance: number;
  /** Share of items whose likeliest option is the one-call reading's. */
  agreement: number;
}

const question = (names: string[]): ChoiceQuestion => ({
  type: 'choice',
  instructions: 'Which queue does this ticket belong to?',
  criteria: names.map((label) => ({ label, description: null })),
});

const top = (p: Reading) => Object.entries(p).reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];

function figures(items: readonly ManyOptionItem[], readings: readonly Reading[], against?: readonly Reading[]): Figures {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    accuracy: mean(readings.map((p, k) => (top(p) === items[k].right ? 1 : 0))),
    logLoss: mean(readings.map((p, k) => -Math.log(Math.max(1e-6, p[items[k].right])))),
    distance: against ? mean(readings.map((p, k) => Object.keys(p).reduce((d, o) => d + Math.abs(p[o] - against[k][o]), 0) / 2)) : 0,
    agreement: against ? mean(readings.map((p, k) => (top(p) === top(against[k]) ? 1 : 0))) : 1,
  };
}

describe('openai engine: the grouped reading of many options, measured against the one-call reading', () => {
  let fake: OpenAIFake;
  const engines: Engine[] = [];
  const made = (labelsPerReading?: number) => {
    const engine = createOpenAIEngine({ baseUrl: fake.url, model: 'simulated', timeoutMs: scaled(10_000), labelsPerReading });
    engines.push(engine);
    return engine;
  };
  const read = (engine: Engine, names: (item: ManyOptionItem) => string[]) =>
    mapBounded(
      SET,
      8,
      async (item) => (await engine.ask(item.state, { q: question(names(item)) }, noDeadline())).answers.q.probabilities,
      noDeadline(),
    );
  /** Read in the order given and reversed (other groups), averaged: what debiasing `reverse` does with every question. */
  const bothOrders = async (engine: Engine, names: (item: ManyOptionItem) => string[]) => {
    const [ahead, back] = [await read(engine, names), await read(engine, (item) => [...names(item)].reverse())];
    return ahead.map((p, k) => Object.fromEntries(Object.keys(p).map((o) => [o, (p[o] + back[k][o]) / 2])));
  };

  beforeAll(async () => {
    fake = await startOpenAIFake((body) => ({ labels: manyOptionAnswer(SET, body) }));
  });
  afterAll(async () => {
    for (const engine of engines) await engine.close?.();
    await fake?.close();
  });

  it(
    'reads 20 options in groups nearly as well as in one call, and 255 as well as one call without the 20-token limit would',
    async () => {
      const twenty = (item: ManyOptionItem) => cut(item, 20);
      const oneCall = await read(made(), twenty);
      const one = figures(SET, oneCall);
      const two = figures(SET, await read(made(10), twenty), oneCall);
      const four = figures(SET, await read(made(5), twenty), oneCall);
      const twoBoth = figures(SET, await bothOrders(made(10), twenty), oneCall);
      const unlimited = SET.map((item) => unlimitedReading(SET, item, item.options));
      const whole = figures(SET, await read(made(), (item) => item.options), unlimited);
      const wholeBoth = figures(SET, await bothOrders(made(), (item) => item.options), unlimited);
      const ideal = figures(SET, unlimited);
      const line = (name: string, f: Figures) =>
        `${name.padEnd(36)} accuracy ${f.accuracy.toFixed(3)}, log loss ${f.logLoss.toFixed(3)}, from one call: distance ${f.distance.toFixed(3)}, same top ${f.agreement.toFixed(3)}`;
      const table = [
        line('20 options in one call', one),
        line('20 in 2 groups of 10', two),
        line('20 in 4 groups of 5', four),
        line('20 in 2 groups of 10, both orders', twoBoth),
        line('255 in one call without the 20 limit', ideal),
        line('255 in 13 groups of 19-20', whole),
        line('255 in 13 groups, both orders', wholeBoth),
      ].join('\n');
      console.log(`grouped reading, ${ITEMS} items:\n${table}`);

      // On the same 20 options, groups cost a little accuracy (two noisy steps instead of
      // one), and the same grouped reading in both orders averaged wins it back.
      for (const grouped of [two, four]) {
        expect(one.accuracy - grouped.accuracy, table).toBeLessThanOrEqual(0.1);
        expect(grouped.logLoss - one.logLoss, table).toBeLessThanOrEqual(0.15);
        expect(grouped.agreement, table).toBeGreaterThanOrEqual(0.7);
        expect(grouped.distance, table).toBeLessThanOrEqual(0.25);
      }
      expect(twoBoth.accuracy, table).toBeGreaterThanOrEqual(one.accuracy - 0.03);
      // At 255, where no call can offer every label, the groups read as well as one
      // unlimited call would: as accurate, and no worse in log loss.
      expect(whole.accuracy, table).toBeGreaterThanOrEqual(ideal.accuracy - 0.05);
      expect(whole.logLoss, table).toBeLessThanOrEqual(ideal.logLoss + 0.1);
      expect(wholeBoth.accuracy, table).toBeGreaterThanOrEqual(whole.accuracy);
    },
    scaled(120_000),
  );
});
