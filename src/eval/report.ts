import { z } from 'zod';
import { Depth, MODES } from '../contract/index.js';
import { DEBIAS_MODES } from '../decision/debias.js';
import { isSufficient } from './item.js';
import { auroc, mean, quality, type Scored, topIndices, totalVariation } from './metrics.js';
import type { ItemPlan, Plan } from './plan.js';
import { answerIndex, distribution } from './readings.js';
import type { Decided, Outcome } from './run.js';

/** The report of `decide eval` (`--json`, `report.json`); docs/eval.md says what each figure means. */

const figure = z.number().nullable();
const Bin = z.object({ from: z.number(), to: z.number(), n: z.int(), confidence: figure, accuracy: figure });
const Quality = z.object({
  n: z.int(),
  accuracy: figure,
  brier: figure,
  logLoss: figure,
  ece: figure,
  reliability: z.array(Bin),
});
const Group = z.object({ n: z.int(), meanSufficiency: figure, needsContextRate: figure });

export const EvalReport = z.object({
  set: z.object({ file: z.string(), items: z.int(), sufficient: z.int(), insufficient: z.int() }),
  /** `debias`: how the engine here was asked (absent for a service reached with --url, which does not say). */
  engine: z.object({
    name: z.string(),
    model: z.string(),
    debias: z.enum(DEBIAS_MODES).optional(),
    /** With `--db`: the temperatures applied, by target (empty when the ledger holds none for this engine and model). */
    temperatures: z.record(z.string(), z.number()).optional(),
  }),
  /** The depth every decision was asked at: at `stress`, `contextSufficiency` weighs the checks. */
  depth: Depth,
  /** Distinct decisions asked (as written, reversed, without the decisive fact). */
  asked: z.int(),
  overall: Quality,
  modes: z.object({ choice: Quality, noul: Quality, score: Quality }),
  positionBias: z.object({ n: z.int(), flipRate: figure, meanShift: figure, primacy: figure }),
  sufficiency: z.object({ auroc: figure, sufficient: Group, insufficient: Group }),
  decisiveFact: z.object({ n: z.int(), changedRate: figure, meanShift: figure }),
  failed: z.object({
    count: z.int(),
    byCode: z.record(z.string(), z.int()),
    items: z.array(z.object({ id: z.string(), variant: z.string(), code: z.string(), message: z.string() })),
  }),
  durationMs: z.int(),
});
export type EvalReport = z.infer<typeof EvalReport>;
export type QualityFigures = z.infer<typeof Quality>;

export interface ReportInput {
  file: string;
  engine: { name: string; model: string };
  depth: Depth;
  plan: Plan;
  outcomes: ReadonlyMap<string, Outcome>;
  durationMs: number;
}

export function buildReport({ file, engine, depth, plan, outcomes, durationMs }: ReportInput): EvalReport {
  const decided = (key: string | null): Decided | null => {
    const outcome = key === null ? undefined : outcomes.get(key);
    return outcome?.ok ? outcome.decided : null;
  };
  const sufficientPlans = plan.items.filter((p) => isSufficient(p.item));
  const scoredOf = (plans: readonly ItemPlan[]): Scored[] =>
    plans.flatMap(({ item, given }) => {
      const reading = decided(given);
      return reading ? [{ p: distribution(item, reading), answer: answerIndex(item) }] : [];
    });
  const modes = Object.fromEntries(
    MODES.map((mode) => [mode, quality(scoredOf(sufficientPlans.filter((p) => p.item.mode === mode)))]),
  ) as Record<(typeof MODES)[number], QualityFigures>;

  return {
    set: { file, items: plan.items.length, sufficient: sufficientPlans.length, insufficient: plan.items.length - sufficientPlans.length },
    engine,
    depth,
    asked: plan.asks.length,
    overall: quality(scoredOf(sufficientPlans)),
    modes,
    positionBias: positionBias(plan.items, decided),
    sufficiency: sufficiency(plan.items, decided),
    decisiveFact: decisiveFact(plan.items, decided),
    failed: failures(plan, outcomes),
    durationMs: Math.round(durationMs),
  };
}

type Lookup = (key: string | null) => Decided | null;

/** The item's distributions in two readings (as written, and `other`), for the items where both were read. */
function pairsOf(plans: readonly ItemPlan[], decided: Lookup, other: 'reversed' | 'withoutFact'): { a: number[]; b: number[] }[] {
  return plans.flatMap((plan) => {
    const a = decided(plan.given);
    const b = decided(plan[other]);
    return a && b ? [{ a: distribution(plan.item, a), b: distribution(plan.item, b) }] : [];
  });
}

const changed = ({ a, b }: { a: number[]; b: number[] }) => (topIndices(a)[0] === topIndices(b)[0] ? 0 : 1);

/** Readings in both orders: how often the top answer changes, by how much, and whether the first place gains. */
function positionBias(plans: readonly ItemPlan[], decided: Lookup): EvalReport['positionBias'] {
  const pairs = pairsOf(plans, decided, 'reversed');
  const last = (p: number[]) => p.length - 1;
  return {
    n: pairs.length,
    flipRate: mean(pairs.map(changed)),
    meanShift: mean(pairs.map(({ a, b }) => totalVariation(a, b))),
    // As written, the item's first class is shown first; reversed, its last is. A
    // positive primacy is the probability a class gains by being shown first.
    primacy: mean(pairs.map(({ a, b }) => (a[0] - b[0] + (b[last(b)] - a[last(a)])) / 2)),
  };
}

/**
 * How well `contextSufficiency` tells the two kinds of context apart. Insufficient
 * ones are the set's items marked so and every item asked without its decisive
 * fact; each distinct request counts once, with the label the set gives it, if any.
 */
function sufficiency(plans: readonly ItemPlan[], decided: Lookup): EvalReport['sufficiency'] {
  const labelled = new Map<string, boolean>();
  for (const { item, given } of plans) labelled.set(given, isSufficient(item));
  for (const { withoutFact } of plans) if (withoutFact !== null && !labelled.has(withoutFact)) labelled.set(withoutFact, false);
  const readings = { sufficient: [] as Decided[], insufficient: [] as Decided[] };
  for (const [key, sufficient] of labelled) {
    const reading = decided(key);
    if (reading) readings[sufficient ? 'sufficient' : 'insufficient'].push(reading);
  }
  const group = (list: Decided[]) => ({
    n: list.length,
    meanSufficiency: mean(list.map((d) => d.contextSufficiency)),
    needsContextRate: mean(list.map((d) => (d.signal === 'needs-context' ? 1 : 0))),
  });
  const scores = (list: Decided[]) => list.map((d) => d.contextSufficiency);
  return {
    auroc: auroc(scores(readings.sufficient), scores(readings.insufficient)),
    sufficient: group(readings.sufficient),
    insufficient: group(readings.insufficient),
  };
}

/** What removing the decisive fact does to the answer: an engine that reads the facts should move. */
function decisiveFact(plans: readonly ItemPlan[], decided: Lookup): EvalReport['decisiveFact'] {
  const pairs = pairsOf(plans, decided, 'withoutFact');
  return {
    n: pairs.length,
    changedRate: mean(pairs.map(changed)),
    meanShift: mean(pairs.map(({ a, b }) => totalVariation(a, b))),
  };
}

function failures(plan: Plan, outcomes: ReadonlyMap<string, Outcome>): EvalReport['failed'] {
  const items: EvalReport['failed']['items'] = [];
  const byCode: Record<string, number> = {};
  for (const ask of plan.asks) {
    const outcome = outcomes.get(ask.key);
    if (!outcome || outcome.ok) continue;
    byCode[outcome.code] = (byCode[outcome.code] ?? 0) + 1;
    items.push({ id: ask.id, variant: ask.variant, code: outcome.code, message: outcome.message });
  }
  return { count: items.length, byCode, items };
}

/** True when not one item could be read as written: nothing was measured. */
export function nothingMeasured(plan: Plan, outcomes: ReadonlyMap<string, Outcome>): boolean {
  return plan.items.every(({ given }) => !outcomes.get(given)?.ok);
}
