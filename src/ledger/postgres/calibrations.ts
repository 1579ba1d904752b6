import type pg from 'pg';
import { calibrationOf, type CalibrationRow, checkCalibration } from '../rules.js';
import type { Calibration, Calibrations } from '../calibrations.js';
import { prepared, queryAgain } from './database.js';

const COLUMNS = 'engine, model, debias, target, temperature, offsets, fitted, held_out, ece_before, ece_after, fitted_at';

const SQL = prepared('calibrations', {
  save: `INSERT INTO calibrations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (engine, model, debias, target) DO UPDATE SET temperature = excluded.temperature, offsets = excluded.offsets, fitted = excluded.fitted,
           held_out = excluded.held_out, ece_before = excluded.ece_before, ece_after = excluded.ece_after, fitted_at = excluded.fitted_at`,
  of: `SELECT ${COLUMNS} FROM calibrations WHERE engine = $1 AND model = $2 AND debias = $3 ORDER BY target`,
  all: `SELECT ${COLUMNS} FROM calibrations ORDER BY engine, model, debias, target`,
  reset: 'DELETE FROM calibrations WHERE engine = $1 AND model = $2',
});

/** The fitted temperatures in the PostgreSQL ledger, shared by every server on it. */
export class PgCalibrations implements Calibrations {
  constructor(private readonly pool: pg.Pool) {}

  async save(c: Calibration): Promise<void> {
    checkCalibration(c);
    await queryAgain(this.pool, SQL.save, [
      c.engine,
      c.model,
      c.debias,
      c.target,
      c.temperature,
      c.offsets === null ? null : JSON.stringify(c.offsets),
      c.fitted,
      c.heldOut,
      c.eceBefore,
      c.eceAfter,
      c.fittedAt,
    ]);
  }

  async list(of?: { engine: string; model: string; debias: Calibration['debias'] }): Promise<Calibration[]> {
    const { rows } = of
      ? await queryAgain<CalibrationRow>(this.pool, SQL.of, [of.engine, of.model, of.debias])
      : await queryAgain<CalibrationRow>(this.pool, SQL.all);
    return rows.map(calibrationOf);
  }

  async reset(of: { engine: string; model: string }): Promise<number> {
    return (await queryAgain(this.pool, SQL.reset, [of.engine, of.model])).rowCount ?? 0;
  }
}
