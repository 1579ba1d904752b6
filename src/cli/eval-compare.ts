import fs from 'node:fs';
import { differences, type Difference } from '../eval/bootstrap.js';
import { figuresOf, headline, HIGHER_IS_BETTER, ZERO_IS_BEST } from '../eval/figures.js';
import type { ItemRecord } from '../eval/records.js';
import { EvalReport } from '../eval/report.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';

/**
 * `decide eval --compare A.json B.json`: whether B's figures differ from A's beyond
 * noise. The two runs are paired item by item (the same ids, read by both), and each
 * difference B − A gets a bootstrap interval from resampling those items for both at
 * once, so an item both got right, or both missed, moves neither side.
 */

export interface Comparison {
  a: { file: string; engine: EvalReport['engine']; depth: string };
  b: { file: string; engine: EvalReport['engine']; depth: string };
  /** Items read by both runs; only these are compared. */
  paired: number;
  onlyA: number;
  onlyB: number;
  figures: Record<string, Difference & { verdict: 'better' | 'worse' | 'within noise' }>;
}

export async function runCompare(files: readonly string[], flags: { json?: boolean; targetAccuracy?: number }): Promise<void> {
  if (files.length !== 2) throw new Failure(`--compare: give two reports, A and B (got ${files.length})`, CLIENT_EXIT.usage);
  const [a, b] = files.map(readReport);
  const comparison = compare(files, a, b, flags.targetAccuracy);
  if (flags.json) process.stdout.write(JSON.stringify(comparison) + '\n');
  else (await import('./ui/compare-view.js')).printComparison(comparisonText(comparison));
}

export function compare(files: readonly string[], a: EvalReport, b: EvalReport, targetAccuracy?: number): Comparison {
  const byId = new Map(b.records.map((r) => [r.id, r]));
  const pairs: { a: ItemRecord; b: ItemRecord }[] = [];
  for (const record of a.records) {
    const other = byId.get(record.id);
    if (other && other.mode === record.mode && other.answer === record.answer) pairs.push({ a: record, b: other });
  }
  if (pairs.length === 0) throw new Failure('--compare: the two reports share no item (compare runs of the same set)', CLIENT_EXIT.usage);
  const found = differences(pairs, (sample) => headline(figuresOf(sample, { targetAccuracy })));
  const figures: Comparison['figures'] = {};
  for (const [name, d] of Object.entries(found)) figures[name] = { ...d, verdict: verdictOf(name, d) };
  const side = (file: string, r: EvalReport) => ({ file, engine: r.engine, depth: r.depth });
  return {
    a: side(files[0], a),
    b: side(files[1], b),
    paired: pairs.length,
    onlyA: a.records.length - pairs.length,
    onlyB: b.records.length - pairs.length,
    figures,
  };
}

function verdictOf(name: string, d: Difference): 'better' | 'worse' | 'within noise' {
  if (!d.differs) return 'within noise';
  if (ZERO_IS_BEST(name)) return Math.abs(d.b) < Math.abs(d.a) ? 'better' : 'worse';
  return d.difference > 0 === HIGHER_IS_BETTER.has(name) ? 'better' : 'worse';
}

function readReport(file: string): EvalReport {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Failure(
      `--compare: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      CLIENT_EXIT.usage,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Failure(`--compare: ${file} is not JSON (write reports with decide eval --json or --out)`, CLIENT_EXIT.usage);
  }
  const parsed = EvalReport.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'the report';
    throw new Failure(
      `--compare: ${file} is not a report of this version of decide eval (${where}: ${parsed.error.issues[0]?.message})`,
      CLIENT_EXIT.usage,
    );
  }
  return parsed.data;
}

/** What `--compare` prints for people: the two runs, then each figure's difference as a table (its header first). */
export function comparisonText(c: Comparison): { intro: string[]; rows: string[][] } {
  const engine = (s: Comparison['a']) =>
    `${s.engine.name} ${s.engine.model}${s.engine.debias ? `, debias ${s.engine.debias}` : ''}, ${s.depth}`;
  const intro = [
    `A: ${c.a.file} (${engine(c.a)})`,
    `B: ${c.b.file} (${engine(c.b)})`,
    `${c.paired} items read by both${c.onlyA || c.onlyB ? ` (${c.onlyA} only in A, ${c.onlyB} only in B, left out)` : ''}; B − A with its 95 % interval:`,
  ];
  const rows = Object.entries(c.figures).map(([name, d]) => [
    name,
    d.a.toFixed(4),
    d.b.toFixed(4),
    `${d.difference >= 0 ? '+' : ''}${d.difference.toFixed(4)}`,
    // The verdict after the interval, in its column: one column less, so the table fits 60 columns.
    `[${d.interval.low.toFixed(4)}, ${d.interval.high.toFixed(4)}] ${d.verdict}`,
  ]);
  return { intro, rows: [['figure', 'A', 'B', 'B − A', 'interval'], ...rows] };
}
