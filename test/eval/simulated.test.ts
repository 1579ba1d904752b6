import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { splitFacts } from '../../src/decision/facts.js';
import { canonicalOrder } from '../../src/decision/orders.js';
import { readSet, type EvalItem } from '../../src/eval/item.js';
import { ordersOf, PERMUTATIONS } from '../../src/eval/plan.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { SimulatedModel, startSimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt, ROOT } from '../support/cli.js';
import { scaled } from '../support/time.js';

/**
 * The yardstick checked against a model whose faults are known: `decide eval` on the
 * shipped set, as a user runs it, against a simulated model served over System One.
 * The model is deterministic (seeded per item), so every figure here is the same on
 * every run; the tolerances cover what the set's size and the 15 bins make of the
 * parameters.
 */

const SET = path.join(ROOT, 'eval', 'decisions.jsonl');
const items: EvalItem[] = readSet(SET);
const FAIR: SimulatedFaults = { accuracy: 0.7, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 };

/**
 * What a first-place bias implies on this set's complete items, computed from the model
 * itself: the flip rate over the orders the evaluation asks (plan.ts), and the primacy.
 */
function impliedBias(faults: SimulatedFaults): { flipRate: number; primacy: number } {
  const model = new SimulatedModel(items, faults);
  const complete = items.filter((item) => item.sufficient !== false);
  const argmax = (p: number[]) => p.indexOf(Math.max(...p));
  let flips = 0;
  let primacy = 0;
  let reversals = 0;
  for (const item of complete) {
    // What the engine is shown when the request lists the classes in `order`: a choice's
    // options sorted whatever the order, a scale's levels and yes/no as listed.
    const shown = (order: readonly number[]) => (item.mode === 'choice' ? canonicalOrder(item.options) : order);
    const k = item.mode === 'noul' ? 2 : item.mode === 'choice' ? item.options.length : 3;
    const a = model.distribution(item, true, shown([...Array(k).keys()]));
    const others = ordersOf(item, PERMUTATIONS, true);
    flips += others.filter(({ order }) => argmax(a) !== argmax(model.distribution(item, true, shown(order)))).length / others.length;
    if (item.mode === 'noul') continue;
    const b = model.distribution(item, true, shown([...Array(k).keys()].reverse()));
    primacy += (a[0] - b[0] + b[k - 1] - a[k - 1]) / 2;
    reversals++;
  }
  return { flipRate: flips / complete.length, primacy: primacy / reversals };
}

describe('decide eval on a simulated model with known faults', () => {
  let sim: SystemOneFake | undefined;
  beforeAll(assertBuilt);
  afterEach(async () => {
    await killAll();
    await sim?.close();
  });

  const evaluate = async (faults: SimulatedFaults, flags: string[] = []): Promise<EvalReport> => {
    sim = await startSimulatedModel(items, faults);
    const env = { DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'simulated' };
    const run = await decide(['eval', '--json', '--concurrency', '8', ...flags], { env, timeoutMs: scaled(80_000) });
    expect(run.code, run.stderr).toBe(0);
    const report = EvalReport.parse(JSON.parse(run.stdout));
    await sim.close();
    sim = undefined;
    return report;
  };

  it('recovers accuracy, calibration, no position bias and a sharp sufficiency signal; overconfidence shows in ECE alone', {
    timeout: scaled(160_000),
  }, async () => {
    const fair = await evaluate(FAIR);
    expect(fair.failed.count).toBe(0);
    expect(fair.engine).toEqual({ name: 'systemone', model: 'simulated', debias: 'none' });
    expect(fair.overall.n).toBe(items.filter((i) => i.sufficient !== false).length);
    expect(fair.overall.accuracy!).toBeGreaterThan(FAIR.accuracy - 0.06);
    expect(fair.overall.accuracy!).toBeLessThan(FAIR.accuracy + 0.06);
    expect(fair.overall.ece!).toBeLessThan(0.05);
    expect(fair.positionBias.complete.flipRate).toBe(0);
    expect(fair.positionBias.twins.flipRate).toBe(0);
    expect(Math.abs(fair.positionBias.primacy!)).toBeLessThan(0.001);
    expect(fair.sufficiency.auroc!).toBeGreaterThan(0.99);
    expect(fair.sufficiency.sufficient.needsContextRate).toBe(0);
    expect(fair.sufficiency.insufficient.needsContextRate).toBe(1);
    // Without its deciding fact the model falls back to a near-uniform guess.
    expect(fair.decisiveFact.meanShift!).toBeGreaterThan(0.2);
    // …and the fact pulls toward the right answer: about ln k minus the log loss on complete items.
    expect(fair.decisiveFact.pull!).toBeGreaterThan(0.2);

    const overconfident = await evaluate({ ...FAIR, temperature: 0.3 });
    // A temperature keeps every ranking: the same answers are right, stated far too surely.
    expect(overconfident.overall.accuracy).toBe(fair.overall.accuracy);
    expect(overconfident.overall.ece!).toBeGreaterThan(0.2);
    expect(overconfident.overall.ece!).toBeGreaterThan(3 * fair.overall.ece!);
    expect(overconfident.overall.logLoss!).toBeGreaterThan(fair.overall.logLoss!);
    // Per mode (80 to 100 items each) the ECE is too noisy to rank two runs; a confident miss still costs more.
    for (const mode of ['choice', 'noul', 'score'] as const) {
      expect(overconfident.modes[mode].logLoss!, mode).toBeGreaterThan(fair.modes[mode].logLoss!);
      expect(overconfident.modes[mode].brier!, mode).toBeGreaterThan(fair.modes[mode].brier!);
    }
  });

  it('a bias toward the first presented label shows as the flips and primacy it implies; no sufficiency signal gives an AUROC near chance', {
    timeout: scaled(80_000),
  }, async () => {
    const faults = { ...FAIR, positionBias: 0.8, sufficiencySeparation: 0 };
    const implied = impliedBias(faults);
    const report = await evaluate(faults);
    expect(implied.flipRate).toBeGreaterThan(0.05);
    expect(Math.abs(report.positionBias.complete.flipRate! - implied.flipRate)).toBeLessThan(0.01);
    // A choice is shown sorted, so reordering it asks the same question: the flips are No-first's (and reordered levels', none here).
    const { modes, n } = report.positionBias.complete;
    expect(modes.choice.n).toBeGreaterThan(0);
    expect(modes.choice.flipRate).toBe(0);
    expect(modes.noul.flipRate!).toBeGreaterThan(0.05);
    expect(modes.choice.n + modes.noul.n + modes.score.n).toBe(n);
    expect(Math.abs(report.positionBias.primacy! - implied.primacy)).toBeLessThan(0.005);
    expect(report.positionBias.primacy!).toBeGreaterThan(0.05);
    expect(report.sufficiency.auroc!).toBeGreaterThan(0.35);
    expect(report.sufficiency.auroc!).toBeLessThan(0.65);
  });

  it('a bias toward the last presented label shows as the negative primacy it implies', { timeout: scaled(80_000) }, async () => {
    const faults = { ...FAIR, lastPlaceBias: 0.8 };
    const implied = impliedBias(faults);
    const report = await evaluate(faults);
    expect(implied.primacy).toBeLessThan(-0.05);
    expect(Math.abs(report.positionBias.complete.flipRate! - implied.flipRate)).toBeLessThan(0.01);
    expect(Math.abs(report.positionBias.primacy! - implied.primacy)).toBeLessThan(0.005);
  });

  it('a bias toward yes is no matter of place: --debias reverse, which also presents No first, leaves it whole', {
    timeout: scaled(160_000),
  }, async () => {
    const fair = await evaluate(FAIR);
    const plain = await evaluate({ ...FAIR, yesBias: 0.8 });
    const debiased = await evaluate({ ...FAIR, yesBias: 0.8 }, ['--debias', 'reverse']);
    expect(plain.modes.noul.logLoss!).toBeGreaterThan(fair.modes.noul.logLoss!);
    // Both presentations weigh yes alike, so their average is either one.
    expect(debiased.modes.noul.logLoss!).toBeCloseTo(plain.modes.noul.logLoss!, 3);
    expect(debiased.modes.noul.accuracy).toBe(plain.modes.noul.accuracy);
    // The other modes have no yes to weigh.
    expect(plain.modes.choice).toEqual(fair.modes.choice);
  });

  it('at stress depth the checks find the fact a complete context rests on, and leave the probe to judge sufficiency', {
    timeout: scaled(240_000),
  }, async () => {
    // A model whose sufficiency probe says nothing (0.5 ± jitter for every context) but
    // whose answers rest on the deciding fact when the context holds it.
    const silent = { ...FAIR, sufficiencySeparation: 0 };
    const standard = await evaluate(silent);
    const stress = await evaluate(silent, ['--depth', 'stress']);
    expect(stress.depth).toBe('stress');
    expect(stress.failed.count).toBe(0);
    // The checks see it: on most complete contexts one fact moves the answer far.
    const complete = stress.records.filter((r) => r.sufficient && r.given?.shifts?.length);
    const resting = complete.filter((r) => Math.max(...r.given!.shifts!) >= 0.3);
    expect(resting.length / complete.length).toBeGreaterThan(0.5);
    // Sufficiency stays the probe's (a rule weighing the checks in did no better on real
    // weights, docs/eval.md): the same figures as standard depth.
    expect(stress.sufficiency).toEqual(standard.sufficiency);
    // The answers themselves are the same decisions.
    expect(stress.overall.accuracy).toBe(standard.overall.accuracy);
  });

  it('at stress depth under reverse, a check charges a fact with nothing of a place bias', {
    timeout: scaled(240_000),
  }, async () => {
    // A model that favours the first place reads a complete context alike without any
    // fact but the deciding one: those checks must not move, and the deciding one must.
    // A check read in one order and set beside the debiased answer would charge each
    // fact with the first place's pull (docs/eval.md, "How a stress check is read").
    const report = await evaluate({ ...FAIR, positionBias: 0.8 }, ['--depth', 'stress', '--debias', 'reverse', '--half', 'odd']);
    expect(report.failed.count).toBe(0);
    const byId = new Map(items.map((item) => [item.id, item]));
    let measured = 0;
    let moved = 0;
    for (const record of report.records) {
      const item = byId.get(record.id)!;
      const shifts = record.given?.shifts;
      if (!record.sufficient || !item.decisiveFact || !shifts || shifts.length < 2) continue;
      const deciding = splitFacts(item.context).findIndex((fact) => fact.text.trim() === item.decisiveFact!.trim());
      if (deciding < 0) continue;
      measured++;
      shifts.forEach((shift, i) => {
        if (i !== deciding) expect(shift, `${item.id}, fact ${i}`).toBeLessThanOrEqual(0.0002);
      });
      if (shifts[deciding] >= 0.1) moved++;
    }
    expect(measured).toBeGreaterThan(50);
    expect(moved / measured).toBeGreaterThan(0.8);
  });

  it("at stress depth names a pivot only beyond the reading's own noise: fewer false alarms than naming every flip", {
    timeout: scaled(240_000),
  }, async () => {
    // A model whose reading moves a little with any change of its prompt, as a small
    // model's does, and whose answers rest on the deciding fact.
    const report = await evaluate({ ...FAIR, jitter: 0.4 }, ['--depth', 'stress']);
    expect(report.failed.count).toBe(0);
    const counted = report.records.filter((r) => r.sufficient && r.given?.pivot !== undefined && r.decisiveFactIndex != null);
    expect(report.decisiveFact.pivots.n).toBe(counted.length);
    expect(counted.length).toBeGreaterThan(50);
    // The rule before: any flip, or a shift of 0.1, named the largest such shift.
    const before = ({ shifts, flips }: { shifts?: number[]; flips?: boolean[] }) => {
      let best: number | null = null;
      shifts!.forEach((shift, i) => {
        if ((flips![i] || shift >= 0.1) && (best === null || shift > shifts![best])) best = i;
      });
      return best;
    };
    const share = (test: (r: (typeof counted)[number]) => boolean) => counted.filter(test).length / counted.length;
    const wrongBefore = share((r) => before(r.given!) !== null && before(r.given!) !== r.decisiveFactIndex);
    const { named, wrong } = report.decisiveFact.pivots;
    // Every flip named a pivot before: on most items, and a wrong one on an item in eight.
    expect(wrongBefore).toBeGreaterThan(0.1);
    expect(wrong!).toBeLessThan(wrongBefore / 4);
    expect(named!).toBeLessThan(share((r) => before(r.given!) !== null));
    // A fact that decides is still named on most items it decides.
    expect(share((r) => r.given!.pivot === r.decisiveFactIndex)).toBeGreaterThan(0.6);
  });

  it('--debias reverse cancels a first-place bias between the two orders it averages, not under other orders', {
    timeout: scaled(160_000),
  }, async () => {
    const biased = { ...FAIR, positionBias: 0.8 };
    const plain = await evaluate(biased);
    const debiased = await evaluate(biased, ['--debias', 'reverse']);
    const unbiased = await evaluate(FAIR);
    expect(debiased.engine.debias).toBe('reverse');
    expect(plain.positionBias.complete.flipRate!).toBeGreaterThan(0.05);
    // As written and reversed, each reading averages the same two presentations: the same distribution.
    for (const record of debiased.records.filter((r) => r.mode !== 'noul' && r.given)) {
      const reversed = record.orders.find((o) => o.variant === 'reversed')!.p!;
      reversed.forEach((p, i) => expect(p, record.id).toBeCloseTo(record.given!.p[i], 9));
    }
    for (const record of debiased.records.filter((r) => r.mode === 'noul' && r.given)) {
      expect(record.orders[0].p![0], record.id).toBeCloseTo(record.given!.p[0], 9);
    }
    expect(debiased.positionBias.primacy).toBe(0);
    // A random order puts other answers first and last: the bias no longer cancels, it only shrinks.
    expect(debiased.positionBias.complete.meanShift!).toBeGreaterThan(0.01);
    expect(debiased.positionBias.complete.flipRate!).toBeLessThan(plain.positionBias.complete.flipRate!);
    expect(debiased.overall.accuracy!).toBeGreaterThan(plain.overall.accuracy!);
    expect(Math.abs(debiased.overall.accuracy! - unbiased.overall.accuracy!)).toBeLessThan(0.02);
  });
});
