import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DecideError } from '../client/errors.js';
import type { Depth } from '../contract/index.js';
import { defaultDebias } from '../decision/debias.js';
import { type Scalings, scalingsOf } from '../decision/scaling.js';
import { ledgerLimits, withStore } from './ledger-access.js';
import { engineDecider } from '../eval/engine-decider.js';
import { STRESS_COST } from '../ledger/rules.js';
import { readSet, SetError, type EvalItem } from '../eval/item.js';
import { splitHalves, type Half } from '../eval/halves.js';
import { planEval, type Plan } from '../eval/plan.js';
import { recordsOf } from '../eval/records.js';
import { stratifiedSample } from '../eval/sample.js';
import { buildReport, nothingMeasured, type EvalReport } from '../eval/report.js';
import { askAll, type Decider, type Outcome } from '../eval/run.js';
import { reliabilitySvg } from '../eval/svg.js';
import { connect, explain, retryNotice } from './client-call.js';
import { CLIENT_EXIT, exitFor, Failure } from './exit-codes.js';
import { shownUrl, type ConnectionFlags } from './config.js';
import { engineConfig, engineEnv, startEngine } from './engine-startup.js';
import { calibrationModel } from './engine-identity.js';
import { confirm } from './input.js';
import { evalProgress } from './eval-progress.js';
import type { Debias } from '../contract/debias.js';
import { counted } from '../contract/words.js';
import type { Estimate, Evaluation } from '../ledger/evaluations.js';
import { isPostgresUrl } from '../ledger/open.js';
import { ledgerName } from './operator/ledger.js';

/** The set shipped in the package, beside dist/. */
export const DEFAULT_SET = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../eval/decisions.jsonl');

export interface EvalFlags extends ConnectionFlags {
  set?: string;
  limit?: number;
  concurrency: number;
  json?: boolean;
  out?: string;
  model?: string;
  /** llama.cpp threads of the local engine (`--threads`). */
  threads?: number;
  debias?: Debias;
  depth: Depth;
  /**
   * The ledger (`--db`, as calibrate's and serve's): its temperatures (`decide calibrate`) are
   * applied, and a summary of the figures kept in it. A SQLite file that does not exist is no ledger.
   */
  db?: string;
  yes?: boolean;
  /** Only the items of this half of the set (halves.ts). */
  half?: Half;
  /** Also find the lowest confidence cut-point whose covered answers are right this often. */
  targetAccuracy?: number;
  /** Two reports to compare instead of running anything. */
  compare?: string[];
}

export interface Target {
  engine: EvalReport['engine'];
  /** The ledger whose scalings were applied, and the engine, model and debiasing it keys them (and the figures) by. */
  ledger?: { db: string; of: { engine: string; model: string; debias: Debias } };
  decide: Decider;
  close(): Promise<void>;
}

/** `decide eval`: asks every item of a set (and its variants), then reports what the answers are worth. */
export async function runEval(flags: EvalFlags): Promise<void> {
  if (flags.compare) return (await import('./eval-compare.js')).runCompare(flags.compare, flags);
  const file = flags.set ?? DEFAULT_SET;
  const { items, halves } = selectItems(file, flags);
  // Only an engine in this process can be asked a yes/no question with No first.
  const plan = planEval(items, { depth: flags.depth, noFirst: flags.url === undefined });
  if (flags.out) makeFolder(flags.out);
  const target = flags.url !== undefined ? await remoteTarget(flags, plan) : await localTarget(flags, ledgerAt(flags.db));

  const started = performance.now();
  const outcomes = await askShowingProgress(plan.asks, target, flags);
  const model = [...outcomes.values()].find((o) => o.ok);
  const engine = { ...target.engine, model: model?.ok ? model.decided.model : target.engine.model };
  const report = buildReport({
    file: shownPath(file),
    engine,
    depth: flags.depth,
    half: flags.half,
    plan,
    outcomes,
    records: recordsOf(plan, outcomes, halves),
    items,
    targetAccuracy: flags.targetAccuracy,
    durationMs: performance.now() - started,
  });

  if (flags.json) process.stdout.write(JSON.stringify(report) + '\n');
  else {
    const { printReport } = await import('./ui/eval-view.js');
    printReport(report);
  }
  try {
    if (flags.out) writeOut(flags.out, report);
    if (nothingMeasured(plan, outcomes)) {
      const codes = Object.entries(report.failed.byCode)
        .map(([code, n]) => `${code} ${n}`)
        .join(', ');
      throw new Failure(`every item failed (${codes}): nothing was measured`, CLIENT_EXIT.service);
    }
    if (target.ledger) await keep(target.ledger, report);
  } catch (error) {
    // The report is printed: the failure is its exit code and its line on stderr.
    if (error instanceof Failure) error.answered = true;
    throw error;
  }
}

/** Asks every request on `target` with the progress bar (or lines), then closes the target. */
export async function askShowingProgress(
  asks: Plan['asks'],
  target: Target,
  flags: Pick<EvalFlags, 'concurrency' | 'json'>,
): Promise<Map<string, Outcome>> {
  const progress = await evalProgress(asks.length, { json: Boolean(flags.json) });
  try {
    return await askAll(asks, target.decide, { concurrency: flags.concurrency, onSettled: progress.update });
  } finally {
    await progress.stop();
    await target.close();
  }
}

/**
 * The items a run measures: the set, or one half of it (`--half`; the halves are those
 * of the whole set), or a stratified sample of that (`--limit`).
 */
export function selectItems(file: string, flags: Pick<EvalFlags, 'limit' | 'half'>): { items: EvalItem[]; halves: Map<string, Half> } {
  let all: EvalItem[];
  try {
    all = readSet(file);
  } catch (error) {
    if (error instanceof SetError) throw new Failure(`--set: ${error.message}`, CLIENT_EXIT.usage);
    throw error;
  }
  const halves = splitHalves(all);
  const inHalf = flags.half === undefined ? all : all.filter((item) => halves.get(item.id) === flags.half);
  return { items: flags.limit === undefined ? inHalf : stratifiedSample(inHalf, flags.limit), halves };
}

export function loadSet(file: string, limit: number | undefined): EvalItem[] {
  return selectItems(file, { limit }).items;
}

/** The engine `decide serve` would run, from the same flags and environment. */
export async function localTarget(flags: Pick<EvalFlags, 'model' | 'threads' | 'debias'>, calibratedBy?: string): Promise<Target> {
  const config = engineConfig(flags);
  const timeoutMs = config.timeoutMs;
  const engine = await startEngine(config);
  const debias = flags.debias ?? defaultDebias(engine.name);
  const scalings =
    calibratedBy === undefined ? {} : await storedScalings(calibratedBy, { engine: engine.name, model: keyedModel(flags, engine), debias });
  return {
    engine: { name: engine.name, model: engine.model, debias, ...(calibratedBy === undefined ? {} : applied(scalings)) },
    ...(calibratedBy === undefined
      ? {}
      : { ledger: { db: calibratedBy, of: { engine: engine.name, model: keyedModel(flags, engine), debias } } }),
    decide: engineDecider(engine, timeoutMs, debias, scalings),
    close: async () => engine.close?.(),
  };
}

const keyedModel = (flags: Pick<EvalFlags, 'model' | 'threads' | 'debias'>, engine: { name: string; model: string }) =>
  calibrationModel(engineEnv(flags), engine);

/**
 * The ledger eval applies and keeps in: `--db` (or its default, as for calibrate and
 * serve), unless it names a SQLite file that does not exist, which eval does not make:
 * it says so in one line and runs without one. A PostgreSQL URL is opened as calibrate does.
 */
function ledgerAt(db: string | undefined): string | undefined {
  if (db === undefined) return undefined;
  if (isPostgresUrl(db) || fs.existsSync(db)) return db;
  process.stderr.write(
    `decide: no ledger at ${ledgerName(db)}: no scalings applied and these figures not kept (point --db at decide serve's ledger to keep them)\n`,
  );
  return undefined;
}

/** Keeps the report's summary in the ledger, replacing the one of the same engine, model and debiasing. */
async function keep(ledger: NonNullable<Target['ledger']>, report: EvalReport): Promise<void> {
  const estimate = (path: string, value: number | null): Estimate | null => {
    if (value === null || !Number.isFinite(value)) return null;
    const interval = report.intervals[path];
    const finite = interval && Number.isFinite(interval.low) && Number.isFinite(interval.high);
    return { value, low: finite ? interval.low : null, high: finite ? interval.high : null };
  };
  const evaluation: Evaluation = {
    ...ledger.of,
    set: report.set.file,
    half: report.set.half ?? null,
    items: report.set.items,
    measured: report.overall.n,
    calibrated: Object.keys(report.engine.temperatures ?? {}).length > 0,
    accuracy: estimate('overall.accuracy', report.overall.accuracy),
    logLoss: estimate('overall.logLoss', report.overall.logLoss),
    ece: estimate('overall.ece', report.overall.ece),
    evaluatedAt: new Date().toISOString(),
  };
  await withStore(ledger.db, ledgerLimits(), (store) => store.evaluations.save(evaluation));
  const { engine, model, debias } = ledger.of;
  process.stderr.write(
    `decide: kept these figures in ${ledgerName(ledger.db)} for ${engine} ${model}, debias ${debias}: decide serve says them at start\n`,
  );
}

async function storedScalings(db: string, of: { engine: string; model: string; debias: Debias }): Promise<Scalings> {
  return scalingsOf(await withStore(db, ledgerLimits(), (store) => store.calibrations.list(of)));
}

/** What the report says was applied: the temperatures, and the offsets where there are any. */
function applied(scalings: Scalings): Pick<EvalReport['engine'], 'temperatures' | 'offsets'> {
  const entries = Object.entries(scalings);
  const offsets = entries.filter(([, s]) => s.offsets?.some((o) => o !== 0)).map(([target, s]) => [target, [...s.offsets!]]);
  return {
    temperatures: Object.fromEntries(entries.map(([target, s]) => [target, s.temperature])),
    ...(offsets.length ? { offsets: Object.fromEntries(offsets) } : {}),
  };
}

/**
 * A running service, through the typed client. Every decision is paid like any
 * other, so it says what the run will spend and asks first. A refused key or an
 * exhausted pass stops the run: every later decision would fail the same way.
 */
async function remoteTarget(flags: EvalFlags, plan: Plan): Promise<Target> {
  const connection = connect(flags, (event) => process.stderr.write(`decide: ${retryNotice(event)}\n`));
  const where = shownUrl(connection.url);
  let usage: Awaited<ReturnType<typeof connection.client.usage>>;
  try {
    usage = await connection.client.usage();
  } catch (error) {
    throw explain(error, connection);
  }
  const n = plan.asks.length;
  // Stress decisions never draw on the free allowance. The key's allowance is what the
  // server reports; its per-IP and site-wide free limits it does not, and they may leave
  // fewer free: so the free figure is an upper bound, and the credits a range.
  const free = flags.depth === 'stress' ? 0 : Math.min(n, usage.freeRemaining);
  const credits = flags.depth === 'stress' ? n * STRESS_COST : n - free;
  const most = flags.depth === 'stress' ? credits : n;
  const short = most > usage.passCredits ? `; it holds ${usage.passCredits}, so the run stops if they run out` : '';
  const cost =
    flags.depth === 'stress'
      ? `The evaluation makes ${counted(n, 'stress decision')} at ${where}: ${counted(credits, 'credit')} of the key's pass (${STRESS_COST} each)${short}.`
      : free === 0
        ? `The evaluation makes ${counted(n, 'decision')} at ${where}: ${counted(n, 'credit')} of the key's pass${short}.`
        : `The evaluation makes ${counted(n, 'decision')} at ${where}: up to ${free} from today's free allowance (fewer if this address or the site ` +
          `has used its free decisions today), the rest from the key's pass: ${credits === most ? counted(credits, 'credit') : `${credits} to ${most} credits`}${short}.`;
  if (flags.yes) process.stderr.write(`decide: ${cost}\n`);
  else {
    if (!process.stdin.isTTY)
      throw new Failure(`${cost} Add --yes to go ahead (standard input is not a terminal to ask on).`, CLIENT_EXIT.usage);
    if (!(await confirm(`${cost} Go on? [y/N] `))) throw new Failure('not run: nothing was spent', CLIENT_EXIT.usage);
  }
  return {
    engine: { name: `decide at ${where}`, model: 'unknown' },
    decide: async ({ request }) => {
      try {
        return await connection.client.decide(request);
      } catch (error) {
        const code = error instanceof DecideError ? exitFor(error) : CLIENT_EXIT.internal;
        if (code === CLIENT_EXIT.auth || code === CLIENT_EXIT.limit) throw explain(error, connection);
        throw error;
      }
    },
    close: async () => {},
  };
}

/** `--out` is made before the run, so a folder that cannot be written fails before anything is spent. */
function makeFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    throw outFailure(dir, error);
  }
}

function writeOut(dir: string, report: EvalReport): void {
  try {
    fs.writeFileSync(path.join(dir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    const groups = [['overall', report.overall], ...Object.entries(report.modes)] as const;
    for (const [name, figures] of groups) {
      if (figures.n === 0) continue;
      const title = `Reliability: ${name === 'overall' ? 'all modes' : name}, ${report.engine.model}`;
      fs.writeFileSync(path.join(dir, `reliability-${name}.svg`), reliabilitySvg(title, figures));
    }
    process.stderr.write(`decide: wrote report.json and the reliability diagrams into ${dir}\n`);
  } catch (error) {
    throw outFailure(dir, error);
  }
}

function outFailure(dir: string, error: unknown): Failure {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new Failure(`--out: cannot write into ${dir} (${code})`, CLIENT_EXIT.usage);
}

/** The set's path as the user would write it: relative to the working folder when inside it. */
function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
