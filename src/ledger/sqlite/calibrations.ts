import type { Database, Statement } from 'better-sqlite3';
import { calibrationOf, type CalibrationRow, checkCalibration } from '../rules.js';
import type { Calibration, Calibrations } from '../calibrations.js';
import type { Transactions } from './transactions.js';

/** The fitted temperatures in the SQLite ledger. */
export class SqliteCalibrations implements Calibrations {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
  ) {
    const p = (sql: string) => db.prepare(sql);
    const columns = 'engine, model, debias, target, temperature, offsets, fitted, held_out, ece_before, ece_after, fitted_at';
    this.s = {
      save: p(`INSERT INTO calibrations (${columns}) VALUES (@engine, @model, @debias, @target, @temperature, @offsets, @fitted, @heldOut, @eceBefore, @eceAfter, @fittedAt)
               ON CONFLICT (engine, model, debias, target) DO UPDATE SET temperature = excluded.temperature, offsets = excluded.offsets, fitted = excluded.fitted,
                 held_out = excluded.held_out, ece_before = excluded.ece_before, ece_after = excluded.ece_after, fitted_at = excluded.fitted_at`),
      of: p(`SELECT ${columns} FROM calibrations WHERE engine = ? AND model = ? AND debias = ? ORDER BY target`),
      all: p(`SELECT ${columns} FROM calibrations ORDER BY engine, model, debias, target`),
      reset: p('DELETE FROM calibrations WHERE engine = ? AND model = ?'),
    };
  }

  async save(calibration: Calibration): Promise<void> {
    checkCalibration(calibration);
    await this.tx.unlocked(() =>
      this.s.save.run({ ...calibration, offsets: calibration.offsets === null ? null : JSON.stringify(calibration.offsets) }),
    );
  }

  async list(of?: { engine: string; model: string; debias: Calibration['debias'] }): Promise<Calibration[]> {
    const rows = await this.tx.unlocked(() => (of ? this.s.of.all(of.engine, of.model, of.debias) : this.s.all.all()));
    return (rows as CalibrationRow[]).map(calibrationOf);
  }

  async reset(of: { engine: string; model: string }): Promise<number> {
    return this.tx.unlocked(() => this.s.reset.run(of.engine, of.model).changes);
  }
}
