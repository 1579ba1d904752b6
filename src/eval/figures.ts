import { z } from 'zod';
import { MODES } from '../contract/index.js';
import { gating, Gating } from './gating.js';
import { auroc, logLoss, mean, quality, type Scored, topChanged, totalVariation } from './metrics.js';
import { positionBias, PositionBias } from './order-bias.js';
import type { ItemRecord, ReadingRecord } from './records.js';

/**
 * Every figure of a report as a pure function of its item records (records.ts), so the
 * same function measures a run, each bootstrap resample of it, and each side of a
 * paired comparison. docs/eval.md defines each figure.
 */

const figure = z.number().nullable();
const Bin = z.object({ from: z.number(), to: z.number(), n: z.int(), confidence: figure, accuracy: figure });
export const Quality = z.object({ n: z.int(), accuracy: figure, brier: figure, logLoss: figure, ece: figure, reliability: z.array(Bin) });
export type QualityFigures = z.infer<typeof Quality>;
const Group = z.object({ n: z.int(), meanSufficiency: figure, needsContextRate: figure });

export const Figures = z.object({
  overall: Quality,
  modes: z.object({ choice: Quality, noul: Quality, score: Quality }),
  positionBias: PositionBias,
  sufficiency: z.object({ auroc: figure, sufficient: Group, insufficient: Group }),
  // `pull` defaults to null: reports written before it was measured still compare.
  decisiveFact: z.object({
    n: z.int(),
    changedRate: figure,
    meanShift: figure,
    pull: figure.default(null),
    // At stress depth only; reports of standard depth, and older ones, have none.
    pivots: z.object({ n: z.int(), named: figure, wrong: figure }).default({ n: 0, named: null, wrong: null }),
  }),
  gating: Gating,
  /**
   * The answers' labelMass over every decision read as written (null where the engine
   * does not say; absent from older reports): how much of the model's next-token
   * probability the answers rested on.
   */
  labelMass: z
    .object({ n: z.int(), smallest: figure, tenth: figure, median: figure })
    .default({ n: 0, smallest: null, tenth: null, median: null }),
});
export type Figures = z.infer<typeof Figures>;

export function figuresOf(records: readonly ItemRecord[], options: { targetAccuracy?: number } = {}): Figures {
  const complete = records.filter((r) => r.sufficient);
  const scored = (list: readonly ItemRecord[]): Scored[] => list.flatMap((r) => (r.given ? [{ p: r.given.p, answer: r.answer }] : []));
  return {
    overall: quality(scored(complete)),
    modes: Object.fromEntries(MODES.map((mode) => [mode, quality(scored(complete.filter((r) => r.mode === mode)))])) as Figures['modes'],
    positionBias: positionBias(records),
    sufficiency: sufficiency(records),
    decisiveFact: decisiveFact(records),
    gating: gating(scored(complete), options.targetAccuracy),
    labelMass: labelMassOf(records),
  };
}

/** The smallest, the tenth percentile and the median of the answers' labelMass. */
function labelMassOf(records: readonly ItemRecord[]): Figures['labelMass'] {
  const masses = records.flatMap((r) => (typeof r.given?.labelMass === 'number' ? [r.given.labelMass] : [])).sort((a, b) => a - b);
  const at = (q: number) => (masses.length === 0 ? null : masses[Math.min(masses.length - 1, Math.floor(q * masses.length))]);
  return { n: masses.length, smallest: masses[0] ?? null, tenth: at(0.1), median: at(0.5) };
}

/**
 * How well `contextSufficiency` tells the two kinds of context apart. Insufficient
 * ones are the set's items marked so and every item asked without its decisive fact;
 * a request that is both (an item's twin) counts once.
 */
function sufficiency(records: readonly ItemRecord[]): Figures['sufficiency'] {
  const sufficient: ReadingRecord[] = [];
  const insufficient: ReadingRecord[] = [];
  for (const r of records) {
    if (r.given) (r.sufficient ? sufficient : insufficient).push(r.given);
    if (r.withoutFact && !r.withoutFactIsItem) insufficient.push(r.withoutFact);
  }
  const group = (list: readonly ReadingRecord[]) => ({
    n: list.length,
    meanSufficiency: mean(list.map((d) => d.contextSufficiency)),
    needsContextRate: mean(list.map((d) => (d.needsContext ? 1 : 0))),
  });
  const scores = (list: readonly ReadingRecord[]) => list.map((d) => d.contextSufficiency);
  return { auroc: auroc(scores(sufficient), scores(insufficient)), sufficient: group(sufficient), insufficient: group(insufficient) };
}

/**
 * What removing the decisive fact does to the answer: an engine that reads the facts
 * should move, and toward the truth. A move alone is no proof of reading: a reading
 * near a tie (two orders averaged, a model that barely prefers anything) changes its
 * top answer with any change of its input. `pull`, the mean gain in ln p of the
 * labelled answer that the fact brings, is 0 for such noise and for an engine that
 * ignores the facts, and positive only for one that reads the fact toward its answer.
 */
function decisiveFact(records: readonly ItemRecord[]): Figures['decisiveFact'] {
  const pairs = records.flatMap((r) => (r.given && r.withoutFact ? [{ a: r.given.p, b: r.withoutFact.p, answer: r.answer }] : []));
  return {
    n: pairs.length,
    changedRate: mean(pairs.map(({ a, b }) => (topChanged(a, b) ? 1 : 0))),
    meanShift: mean(pairs.map(({ a, b }) => totalVariation(a, b))),
    // ln p with the fact − ln p without it, each floored as the log loss floors it.
    pull: mean(pairs.map(({ a, b, answer }) => logLoss({ p: b, answer }) - logLoss({ p: a, answer }))),
    pivots: pivots(records),
  };
}

/**
 * At stress depth, on complete items whose decisive fact is one of the facts a stress
 * decision splits: how often a pivot is named, and how often the one named is another
 * fact (`wrong`), the false alarm a reader would act on. An engine that names a pivot on
 * its own noise names one on nearly every item, most of them wrong.
 */
function pivots(records: readonly ItemRecord[]): Figures['decisiveFact']['pivots'] {
  const named = records.flatMap((r) =>
    r.sufficient && r.given?.pivot !== undefined && r.decisiveFactIndex != null
      ? [{ pivot: r.given.pivot, fact: r.decisiveFactIndex }]
      : [],
  );
  return {
    n: named.length,
    named: mean(named.map(({ pivot }) => (pivot === null ? 0 : 1))),
    wrong: mean(named.map(({ pivot, fact }) => (pivot !== null && pivot !== fact ? 1 : 0))),
  };
}

/**
 * The figures that carry an interval and that `--compare` judges, by their path in
 * the report. Lower is better for the losses, the errors and the biases' size; the
 * comparison says which way each went.
 */
export function headline(f: Figures): Record<string, number | null> {
  const out: Record<string, number | null> = {
    'overall.accuracy': f.overall.accuracy,
    'overall.brier': f.overall.brier,
    'overall.logLoss': f.overall.logLoss,
    'overall.ece': f.overall.ece,
  };
  for (const mode of MODES) {
    out[`modes.${mode}.accuracy`] = f.modes[mode].accuracy;
    out[`modes.${mode}.logLoss`] = f.modes[mode].logLoss;
    out[`modes.${mode}.ece`] = f.modes[mode].ece;
  }
  const bias = f.positionBias;
  Object.assign(out, {
    'positionBias.complete.flipRate': bias.complete.flipRate,
    ...Object.fromEntries(MODES.map((m) => [`positionBias.complete.modes.${m}.flipRate`, bias.complete.modes[m].flipRate])),
    'positionBias.twins.flipRate': bias.twins.flipRate,
    'positionBias.primacy': bias.primacy,
    'positionBias.places.first.bias': bias.places.first.bias,
    'positionBias.places.middle.bias': bias.places.middle.bias,
    'positionBias.places.last.bias': bias.places.last.bias,
    'positionBias.middleLevel.bias': bias.middleLevel.bias,
    'positionBias.yes.bias': bias.yes.bias,
    'sufficiency.auroc': f.sufficiency.auroc,
    'sufficiency.sufficient.needsContextRate': f.sufficiency.sufficient.needsContextRate,
    'sufficiency.insufficient.needsContextRate': f.sufficiency.insufficient.needsContextRate,
    'decisiveFact.changedRate': f.decisiveFact.changedRate,
    'decisiveFact.pull': f.decisiveFact.pull,
    'decisiveFact.pivots.wrong': f.decisiveFact.pivots.wrong,
  });
  if (f.gating.target) {
    out['gating.target.cut'] = f.gating.target.cut;
    out['gating.target.coverage'] = f.gating.target.coverage;
  }
  return out;
}

/** Figures where a higher value is better; for the others lower is better, or (biases) nearer 0. */
export const HIGHER_IS_BETTER = new Set([
  'overall.accuracy',
  ...MODES.map((m) => `modes.${m}.accuracy`),
  'sufficiency.auroc',
  'sufficiency.insufficient.needsContextRate',
  'decisiveFact.changedRate',
  'decisiveFact.pull',
  'gating.target.coverage',
]);
/** Figures whose best value is 0 from either side. */
export const ZERO_IS_BEST = (name: string) => name.startsWith('positionBias.') && !name.endsWith('flipRate');
