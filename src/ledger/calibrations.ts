import type { Debias } from '../contract/debias.js';
/** What a temperature is fitted for: the main answer of each mode, and the sufficiency probe. */
export const CALIBRATION_TARGETS = ['choice', 'noul', 'score', 'sufficiency'] as const;
export type CalibrationTarget = (typeof CALIBRATION_TARGETS)[number];

/** A fitted temperature of one engine, model and order debiasing, for one target (`decide calibrate`). */
export interface Calibration {
  engine: string;
  /** The model as the ledger keys it: a local GGUF file's name with a fingerprint of its content (cli/model-fingerprint.ts). */
  model: string;
  /** The order debiasing the readings were made under: a fit holds for that mode only. */
  debias: Debias;
  target: CalibrationTarget;
  temperature: number;
  /** Offsets fitted with the temperature (decision/scaling.ts), or null: none. */
  offsets: number[] | null;
  /** Readings it was fitted on, and held out to judge it. */
  fitted: number;
  heldOut: number;
  /** Expected calibration error of the held-out readings, before and after. */
  eceBefore: number;
  eceAfter: number;
  fittedAt: string;
}

/** The fitted temperatures, kept in the ledger so every server on it applies them. */
export interface Calibrations {
  /** Replaces the temperature of that engine, model, debiasing and target. */
  save(calibration: Calibration): Promise<void>;
  /** Those of one engine, model and debiasing, or all of them. */
  list(of?: { engine: string; model: string; debias: Debias }): Promise<Calibration[]>;
  /** Removes those of one engine and model, whatever the debiasing; returns how many. */
  reset(of: { engine: string; model: string }): Promise<number>;
}
