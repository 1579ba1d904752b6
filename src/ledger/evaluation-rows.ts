import type { Estimate, Evaluation } from './evaluations.js';

/** The `evaluations` columns, in the order both stores write them. */
export const EVALUATION_COLUMNS = [
  'engine',
  'model',
  'debias',
  'set_file',
  'half',
  'items',
  'measured',
  'calibrated',
  'accuracy',
  'accuracy_low',
  'accuracy_high',
  'log_loss',
  'log_loss_low',
  'log_loss_high',
  'ece',
  'ece_low',
  'ece_high',
  'evaluated_at',
] as const;

/** An `evaluations` row as both stores read it back (`calibrated`: SQLite 0/1, PostgreSQL boolean; `evaluated_at`: text or timestamptz). */
export interface EvaluationRow {
  engine: string;
  model: string;
  debias: Evaluation['debias'];
  set_file: string;
  half: Evaluation['half'];
  items: number;
  measured: number;
  calibrated: number | boolean;
  accuracy: number | null;
  accuracy_low: number | null;
  accuracy_high: number | null;
  log_loss: number | null;
  log_loss_low: number | null;
  log_loss_high: number | null;
  ece: number | null;
  ece_low: number | null;
  ece_high: number | null;
  evaluated_at: string | Date;
}

/** The row's values in EVALUATION_COLUMNS order, `calibrated` as the store wants it. */
export function evaluationValues(e: Evaluation, calibrated: number | boolean): unknown[] {
  const parts = (x: Estimate | null) => (x === null ? [null, null, null] : [x.value, x.low, x.high]);
  return [
    e.engine,
    e.model,
    e.debias,
    e.set,
    e.half,
    e.items,
    e.measured,
    calibrated,
    ...parts(e.accuracy),
    ...parts(e.logLoss),
    ...parts(e.ece),
    e.evaluatedAt,
  ];
}

export function evaluationOf(r: EvaluationRow): Evaluation {
  const estimate = (value: number | null, low: number | null, high: number | null): Estimate | null =>
    value === null ? null : { value, low, high };
  return {
    engine: r.engine,
    model: r.model,
    debias: r.debias,
    set: r.set_file,
    half: r.half,
    items: r.items,
    measured: r.measured,
    calibrated: Boolean(r.calibrated),
    accuracy: estimate(r.accuracy, r.accuracy_low, r.accuracy_high),
    logLoss: estimate(r.log_loss, r.log_loss_low, r.log_loss_high),
    ece: estimate(r.ece, r.ece_low, r.ece_high),
    evaluatedAt: r.evaluated_at instanceof Date ? r.evaluated_at.toISOString() : r.evaluated_at,
  };
}

/** Throws naming the rule a summary breaks: counts are non-negative integers, figures finite. */
export function checkEvaluation(e: Evaluation): void {
  for (const n of [e.items, e.measured])
    if (!Number.isSafeInteger(n) || n < 0) throw new Error('Item counts must be non-negative integers.');
  if (e.measured > e.items) throw new Error('No more items can be measured than were asked.');
  for (const x of [e.accuracy, e.logLoss, e.ece]) {
    if (x === null) continue;
    if (![x.value, x.low ?? 0, x.high ?? 0].every(Number.isFinite)) throw new Error('An eval figure and its interval are finite numbers.');
  }
  if (e.half !== null && e.half !== 'even' && e.half !== 'odd') throw new Error('A half is even or odd.');
}
