import type { Database, Statement } from 'better-sqlite3';
import { checkEvaluation, EVALUATION_COLUMNS, evaluationOf, evaluationValues, type EvaluationRow } from '../evaluation-rows.js';
import type { Evaluation, Evaluations } from '../evaluations.js';
import type { Transactions } from './transactions.js';

const COLUMNS = EVALUATION_COLUMNS.join(', ');
const KEY: readonly string[] = ['engine', 'model', 'debias'];

/** The `decide eval` summaries in the SQLite ledger. */
export class SqliteEvaluations implements Evaluations {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
  ) {
    const p = (sql: string) => db.prepare(sql);
    const updates = EVALUATION_COLUMNS.filter((c) => !KEY.includes(c))
      .map((c) => `${c} = excluded.${c}`)
      .join(', ');
    this.s = {
      save: p(`INSERT INTO evaluations (${COLUMNS}) VALUES (${EVALUATION_COLUMNS.map(() => '?').join(', ')})
               ON CONFLICT (engine, model, debias) DO UPDATE SET ${updates}`),
      find: p(`SELECT ${COLUMNS} FROM evaluations WHERE engine = ? AND model = ? AND debias = ?`),
      all: p(`SELECT ${COLUMNS} FROM evaluations ORDER BY engine, model, debias`),
    };
  }

  async save(evaluation: Evaluation): Promise<void> {
    checkEvaluation(evaluation);
    await this.tx.unlocked(() => this.s.save.run(...evaluationValues(evaluation, evaluation.calibrated ? 1 : 0)));
  }

  async find(of: { engine: string; model: string; debias: Evaluation['debias'] }): Promise<Evaluation | undefined> {
    const row = await this.tx.unlocked(() => this.s.find.get(of.engine, of.model, of.debias) as EvaluationRow | undefined);
    return row && evaluationOf(row);
  }

  async list(): Promise<Evaluation[]> {
    const rows = await this.tx.unlocked(() => this.s.all.all() as EvaluationRow[]);
    return rows.map(evaluationOf);
  }
}
