/** What a temperature is fitted for: the main answer of each mode, and the sufficiency probe. */
export const CALIBRATION_TARGETS = ['choice', 'noul', 'score', 'sufficiency'] as const;
export type CalibrationTarget = (typeof CALIBRATION_TARGETS)[number];

/** A fitted temperature of one engine and model, for one target (`decide calibrate`). */
export interface Calibration {
  engine: string;
  model: string;
  target: CalibrationTarget;
  temperature: number;
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
  /** Replaces the temperature of that engine, model and target. */
  save(calibration: Calibration): Promise<void>;
  /** Those of one engine and model, or all of them. */
  list(of?: { engine: string; model: string }): Promise<Calibration[]>;
  /** Removes those of one engine and model; returns how many. */
  reset(of: { engine: string; model: string }): Promise<number>;
}
