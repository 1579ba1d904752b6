import { z } from 'zod';
import { Depth } from '../contract/index.js';
import { intervals } from './bootstrap.js';
import { Figures, figuresOf, headline } from './figures.js';
import { HALVES, type Half } from './halves.js';
import type { Plan } from './plan.js';
import { ItemRecord } from './records.js';
import type { Outcome } from './run.js';
import { shortcutBaselines, ShortcutReport } from './shortcuts.js';
import type { EvalItem } from './item.js';
import { DEBIAS_MODES } from '../contract/debias.js';

export type { QualityFigures } from './figures.js';

/** The report of `decide eval` (`--json`, `report.json`); docs/eval.md says what each figure means. */

const Interval = z.object({ low: z.number(), high: z.number() });

export const EvalReport = z.object({
  set: z.object({
    file: z.string(),
    items: z.int(),
    sufficient: z.int(),
    insufficient: z.int(),
    /** With `--half`: the half of the set measured (halves.ts). */
    half: z.enum(HALVES as [Half, Half]).optional(),
  }),
  /** `debias`: how the engine here was asked (absent for a service reached with --url, which does not say). */
  engine: z.object({
    name: z.string(),
    model: z.string(),
    debias: z.enum(DEBIAS_MODES).optional(),
    /** With `--db`: the temperatures applied, by target (empty when the ledger holds none for this engine and model). */
    temperatures: z.record(z.string(), z.number()).optional(),
    /** With `--db`: the offsets applied with them, by target, where a fit has any (decision/scaling.ts). */
    offsets: z.record(z.string(), z.array(z.number())).optional(),
  }),
  /** The depth every decision was asked at: at `stress`, the records keep each without-fact check's shift. */
  depth: Depth,
  /** Distinct decisions asked (as written, in other orders, without the decisive fact). */
  asked: z.int(),
  ...Figures.shape,
  /** Per mode, the best rule that answers without reading the items properly (shortcuts.ts): an engine should beat it. */
  shortcuts: ShortcutReport.shape.modes,
  /** The 95 % bootstrap interval of each headline figure, by its path in this report (figures.ts `headline`). */
  intervals: z.record(z.string(), Interval),
  failed: z.object({
    count: z.int(),
    byCode: z.record(z.string(), z.int()),
    items: z.array(z.object({ id: z.string(), variant: z.string(), code: z.string(), message: z.string() })),
  }),
  durationMs: z.int(),
  /** What was read of each item: every figure above is computed from these. */
  records: z.array(ItemRecord),
});
export type EvalReport = z.infer<typeof EvalReport>;

export interface ReportInput {
  file: string;
  engine: EvalReport['engine'];
  depth: Depth;
  half?: Half;
  plan: Plan;
  outcomes: ReadonlyMap<string, Outcome>;
  records: ItemRecord[];
  /** The items measured, for their shortcut baselines. */
  items: readonly EvalItem[];
  targetAccuracy?: number;
  durationMs: number;
}

export function buildReport({
  file,
  engine,
  depth,
  half,
  plan,
  outcomes,
  records,
  items,
  targetAccuracy,
  durationMs,
}: ReportInput): EvalReport {
  const sufficient = records.filter((r) => r.sufficient).length;
  const options = { targetAccuracy };
  return {
    set: { file, items: records.length, sufficient, insufficient: records.length - sufficient, ...(half ? { half } : {}) },
    engine,
    depth,
    asked: plan.asks.length,
    ...figuresOf(records, options),
    shortcuts: shortcutBaselines(items).modes,
    intervals: intervals(records, (sample) => headline(figuresOf(sample, options))),
    failed: failures(plan, outcomes),
    durationMs: Math.round(durationMs),
    records,
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
