import { z } from 'zod';
import { MODES } from '../contract/index.js';
import { type Half, HALVES } from './halves.js';
import { isSufficient } from './item.js';
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
  /**
   * At stress depth: each without-fact check's shift, in fact order, so that a rule
   * weighing the checks into sufficiency can be judged on the readings it would weigh
   * (scripts/sufficiency-rules.mjs).
   */
  shifts: z.array(z.number()).optional(),
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
      const shifts = d.stress?.checks.flatMap((check) => (check.kind === 'without-fact' ? [check.shift] : []));
      return {
        p: distribution(item, d),
        contextSufficiency: d.contextSufficiency,
        needsContext: d.signal === 'needs-context',
        ...(d.stress ? { shifts } : {}),
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
    };
  });
}
