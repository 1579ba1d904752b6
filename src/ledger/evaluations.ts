import type { Debias } from '../contract/debias.js';

/** A figure of `decide eval` with its 95 % bootstrap interval (null bounds: too few items to draw one). */
export interface Estimate {
  value: number;
  low: number | null;
  high: number | null;
}

/**
 * What `decide eval` measured of one engine, model and order debiasing, summed up
 * from its report (eval/report.ts): kept in the ledger so `decide serve` can say
 * whether the model it answers with was measured, and how well it did.
 */
export interface Evaluation {
  engine: string;
  /** The model as the ledger keys it, as for calibrations (cli/engine-identity.ts `calibrationModel`). */
  model: string;
  debias: Debias;
  /** The set as the report names it, and the half of it measured (null: the whole set). */
  set: string;
  half: 'even' | 'odd' | null;
  /** Items measured, and how many of them were read as written (the figures' n). */
  items: number;
  measured: number;
  /** Whether the temperatures `decide calibrate` kept were applied to the answers measured. */
  calibrated: boolean;
  /** The overall figures (null: nothing of that kind was measured). */
  accuracy: Estimate | null;
  logLoss: Estimate | null;
  ece: Estimate | null;
  evaluatedAt: string;
}

/** The eval summaries, one per engine, model and debiasing. */
export interface Evaluations {
  /** Replaces the summary of that engine, model and debiasing. */
  save(evaluation: Evaluation): Promise<void>;
  /** That of one engine, model and debiasing, or undefined. */
  find(of: { engine: string; model: string; debias: Debias }): Promise<Evaluation | undefined>;
  /** All of them. */
  list(): Promise<Evaluation[]>;
}
