import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSet, type EvalItem } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { startSimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt, ROOT } from '../support/cli.js';
import { scaled } from '../support/time.js';

/**
 * Every fault a review of the yardstick used, planted in the simulated model one at a
 * time, shows in `decide eval`'s report as a number whose interval leaves out 0, while
 * a model without it shows none. Before, a middle-place, yes-label, middle-level or
 * last-place bias all read flip rate 0 and primacy 0.
 */

const items: EvalItem[] = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));
const FAIR: SimulatedFaults = { accuracy: 0.7, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 };
const BIASES = [
  'positionBias.places.first.bias',
  'positionBias.places.middle.bias',
  'positionBias.places.last.bias',
  'positionBias.middleLevel.bias',
  'positionBias.yes.bias',
];

describe('the faults a review planted, as the report shows them', () => {
  let sim: SystemOneFake | undefined;
  beforeAll(assertBuilt);
  afterEach(async () => {
    await killAll();
    await sim?.close();
    sim = undefined;
  });

  const evaluate = async (faults: SimulatedFaults, flags: string[] = []): Promise<EvalReport> => {
    sim = await startSimulatedModel(items, faults);
    const env = { DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'simulated' };
    const run = await decide(['eval', '--json', '--concurrency', '8', ...flags], { env, timeoutMs: scaled(80_000) });
    expect(run.code, run.stderr).toBe(0);
    await sim.close();
    sim = undefined;
    return EvalReport.parse(JSON.parse(run.stdout));
  };
  /** The interval of a figure lies wholly above 0. */
  const above = (report: EvalReport, figure: string) => expect(report.intervals[figure]?.low, figure).toBeGreaterThan(0);
  const around = (report: EvalReport, figure: string) => {
    expect(report.intervals[figure]?.low, figure).toBeLessThanOrEqual(0);
    expect(report.intervals[figure]?.high, figure).toBeGreaterThanOrEqual(0);
  };

  it('no fault: every bias interval holds 0', { timeout: scaled(90_000) }, async () => {
    const report = await evaluate(FAIR);
    for (const figure of BIASES) around(report, figure);
  });

  it.each([
    ['a first-place bias', { positionBias: 0.8 }, 'positionBias.places.first.bias'],
    ['a last-place (recency) bias', { lastPlaceBias: 0.8 }, 'positionBias.places.last.bias'],
    ['a middle-place bias', { middlePlaceBias: 0.8 }, 'positionBias.places.middle.bias'],
    ['a bias toward the middle level', { middleLevelBias: 0.8 }, 'positionBias.middleLevel.bias'],
    ['a bias toward yes', { yesBias: 0.8 }, 'positionBias.yes.bias'],
  ] as const)('%s shows as its own bias, beyond noise', { timeout: scaled(90_000) }, async (_name, fault, figure) => {
    const report = await evaluate({ ...FAIR, ...fault });
    above(report, figure);
  });

  it('underconfidence: answers right more often than they say, and a worse log loss', { timeout: scaled(180_000) }, async () => {
    const fair = await evaluate(FAIR);
    const timid = await evaluate({ ...FAIR, temperature: 2.5 });
    expect(timid.overall.accuracy).toBe(fair.overall.accuracy);
    const gap =
      timid.overall.reliability.reduce(
        (sum, bin) => sum + (bin.n && bin.accuracy !== null && bin.confidence !== null ? bin.n * (bin.accuracy - bin.confidence) : 0),
        0,
      ) / timid.overall.n;
    expect(gap).toBeGreaterThan(0.1);
    expect(timid.overall.logLoss!).toBeGreaterThan(fair.overall.logLoss!);
  });

  it('incomplete contexts whose confident guesses change with the facts shown: stress depth reads sufficiency as standard depth does, never below chance', {
    timeout: scaled(240_000),
  }, async () => {
    // A probe that says nothing, and confident guesses that move whenever a fact is cut:
    // the rule stress depth once applied read every move as evidence of a complete
    // context and ranked the contexts below chance (AUROC 0.2).
    const faults: SimulatedFaults = { ...FAIR, sufficiencySeparation: 0, guesses: 'shifting', guessConfidence: 0.7 };
    const standard = await evaluate(faults);
    const stress = await evaluate(faults, ['--depth', 'stress']);
    expect(stress.sufficiency.auroc).toBe(standard.sufficiency.auroc);
    expect(stress.intervals['sufficiency.auroc'].high).toBeGreaterThan(0.5);
    expect(stress.sufficiency.sufficient.needsContextRate).toBe(standard.sufficiency.sufficient.needsContextRate);
  });
});
