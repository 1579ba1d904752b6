import type pg from 'pg';
import { checkEvaluation, EVALUATION_COLUMNS, evaluationOf, evaluationValues, type EvaluationRow } from '../evaluation-rows.js';
import type { Evaluation, Evaluations } from '../evaluations.js';
import { prepared, queryAgain } from './database.js';

const COLUMNS = EVALUATION_COLUMNS.join(', ');
const KEY: readonly string[] = ['engine', 'model', 'debias'];

const SQL = prepared('evaluations', {
  save: `INSERT INTO evaluations (${COLUMNS}) VALUES (${EVALUATION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (engine, model, debias) DO UPDATE SET ${EVALUATION_COLUMNS.filter((c) => !KEY.includes(c))
           .map((c) => `${c} = excluded.${c}`)
           .join(', ')}`,
  find: `SELECT ${COLUMNS} FROM evaluations WHERE engine = $1 AND model = $2 AND debias = $3`,
  all: `SELECT ${COLUMNS} FROM evaluations ORDER BY engine, model, debias`,
});

/** The `decide eval` summaries in the PostgreSQL ledger, shared by every server on it. */
export class PgEvaluations implements Evaluations {
  constructor(private readonly pool: pg.Pool) {}

  async save(evaluation: Evaluation): Promise<void> {
    checkEvaluation(evaluation);
    await queryAgain(this.pool, SQL.save, evaluationValues(evaluation, evaluation.calibrated));
  }

  async find(of: { engine: string; model: string; debias: Evaluation['debias'] }): Promise<Evaluation | undefined> {
    const { rows } = await queryAgain<EvaluationRow>(this.pool, SQL.find, [of.engine, of.model, of.debias]);
    return rows[0] && evaluationOf(rows[0]);
  }

  async list(): Promise<Evaluation[]> {
    const { rows } = await queryAgain<EvaluationRow>(this.pool, SQL.all);
    return rows.map(evaluationOf);
  }
}
