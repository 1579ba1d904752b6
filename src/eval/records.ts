import { z } from 'zod';
import { MODES, type Stress } from '../contract/index.js';
import { type Half, HALVES } from './halves.js';
import { splitFacts } from '../decision/facts.js';
import { type EvalItem, isSufficient } from './item.js';
import type { Plan } from './plan.js';
import { answerIndex, distribution } from './readings.js';
import type { Decided, Outcome } from './run.js';

/**
 * What an evaluation read of each item, in the item's own class order: the unit every
 * figure is computed from, and what a bootstrap resamples. The report carries them,
 * so two reports of the same set can be compared item by item (`--compare`).
 */

const Distribution = z.array(z.number());

export const ReadingRecord = z.object({
  /** Over the item's classes in its order (yes/no: [yes, no]); unrounded when the engine ran here. */
  p: Distribution,
  contextSufficiency: z.number(),
  needsContext: z.boolean(),
  /** The answer's `labelMass`: the smallest share of the next-token probability its readings put on the labels; null when the engine does not say. */
  labelMass: z.number().nullable().optional(),
  /**
   * At stress depth: each without-fact check's shift, in fact order, so that a rule
   * weighing the checks into sufficiency can be judged on the readings it would weigh
   * (scripts/sufficiency-rules.mjs).
   */
  shifts: z.array(z.number()).optional(),
  /** At stress depth: whether each without-fact check flipped the answer, in fact order. */
  flips: z.array(z.boolean()).optional(),
  /** At stress depth: the reversed check's shift, the engine's own noise on the question. */
  reversedShift: z.number().optional(),
  /** At stress depth: the pivot's factIndex, or null when no single fact decides it. */
  pivot: z.int().nullable().optional(),
});
export type ReadingRecord = z.infer<typeof ReadingRecord>;

export const ItemRecord = z.object({
  id: z.string(),
  mode: z.enum(MODES),
  family: z.string().optional(),
  half: z.enum(HALVES as [Half, Half]),
  /** Whether the context holds what decides the item (false for a twin). */
  sufficient: z.boolean(),
  /** The labelled answer's index among the item's classes. */
  answer: z.int(),
  /** As written; null when that decision failed. */
  given: ReadingRecord.nullable(),
  /** In other presentation orders; `order[place]` is the class shown at that place, `p` null when it failed. */
  orders: z.array(z.object({ variant: z.enum(['reversed', 'permuted', 'no-first']), order: z.array(z.int()), p: Distribution.nullable() })),
  /** Without the decisive fact; null when the item has none or that decision failed. */
  withoutFact: ReadingRecord.nullable(),
  /** True when the request without the fact is also an item of the set (its twin), which counts it. */
  withoutFactIsItem: z.boolean(),
  /** The decisive fact's place among the context's facts as a stress decision splits them; null when it has none there. */
  decisiveFactIndex: z.int().nullable().optional(),
});
export type ItemRecord = z.infer<typeof ItemRecord>;

export function recordsOf(plan: Plan, outcomes: ReadonlyMap<string, Outcome>, halves: ReadonlyMap<string, Half>): ItemRecord[] {
  const decided = (key: string | null): Decided | null => {
    const outcome = key === null ? undefined : outcomes.get(key);
    return outcome?.ok ? outcome.decided : null;
  };
  const givenKeys = new Set(plan.items.map((p) => p.given));
  return plan.items.map(({ item, given, presentations, withoutFact }) => {
    const reading = (key: string | null): ReadingRecord | null => {
      const d = decided(key);
      if (!d) return null;
      return {
        p: distribution(item, d),
        contextSufficiency: d.contextSufficiency,
        needsContext: d.signal === 'needs-context',
        labelMass: d.labelMass ?? null,
        ...(d.stress ? stressRecord(d.stress) : {}),
      };
    };
    return {
      id: item.id,
      mode: item.mode,
      ...(item.family === undefined ? {} : { family: item.family }),
      half: halves.get(item.id) ?? 'even',
      sufficient: isSufficient(item),
      answer: answerIndex(item),
      given: reading(given),
      orders: presentations.map(({ key, variant, order }) => {
        const d = decided(key);
        return { variant, order: [...order], p: d && distribution(item, d, order) };
      }),
      withoutFact: reading(withoutFact),
      withoutFactIsItem: withoutFact !== null && givenKeys.has(withoutFact),
      decisiveFactIndex: decisiveIndex(item),
    };
  });
}

function stressRecord(stress: Stress): Pick<ReadingRecord, 'shifts' | 'flips' | 'reversedShift' | 'pivot'> {
  const withoutFact = stress.checks.filter((check) => check.kind === 'without-fact');
  return {
    shifts: withoutFact.map((check) => check.shift),
    flips: withoutFact.map((check) => !check.agrees),
    reversedShift: stress.checks.find((check) => check.kind === 'reversed')?.shift ?? 0,
    pivot: stress.pivot?.factIndex ?? null,
  };
}

/** Where the item's decisive fact is among its context's facts (decision/facts.ts), or null. */
function decisiveIndex(item: EvalItem): number | null {
  if (!item.decisiveFact) return null;
  const index = splitFacts(item.context).findIndex((fact) => fact.text.trim() === item.decisiveFact!.trim());
  return index < 0 ? null : index;
}
