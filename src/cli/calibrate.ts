import { performance } from 'node:perf_hooks';
import { fitAll, type Fit } from '../eval/calibrate.js';
import { planEval } from '../eval/plan.js';
import type { Calibration } from '../ledger/store.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';
import { askShowingProgress, DEFAULT_SET, loadSet, localTarget, type EvalFlags } from './eval.js';
import { ledgerLimits, withStore } from './ledger-access.js';

export interface CalibrateFlags extends Pick<EvalFlags, 'set' | 'limit' | 'concurrency' | 'json' | 'model' | 'threads' | 'debias'> {
  db: string;
  show?: boolean;
  reset?: boolean;
}

/**
 * `decide calibrate`: fits a temperature per target for the engine `decide serve`
 * would run, on half the set, judges it on the other half, and keeps it in the
 * ledger, where `serve` (and `eval --db`) apply it to that engine and model.
 */
export async function runCalibrate(flags: CalibrateFlags): Promise<void> {
  if (flags.show) return show(flags);
  if (flags.reset) return reset(flags);

  const file = flags.set ?? DEFAULT_SET;
  const items = loadSet(file, flags.limit);
  const full = planEval(items);
  // The readings as asked: those in other orders only measure position bias.
  const plan = { ...full, asks: full.asks.filter((ask) => ask.variant === 'given' || ask.variant === 'without-fact') };
  const target = await localTarget(flags);
  const started = performance.now();
  const outcomes = await askShowingProgress(plan.asks, target, flags);
  const fits = fitAll(plan, outcomes);
  if (fits.length === 0) throw new Failure('every reading failed: nothing to fit', CLIENT_EXIT.service);
  const { name: engine, model, debias } = target.engine;
  const fittedAt = new Date().toISOString();
  await withStore(flags.db, ledgerLimits(), async (store) => {
    for (const fit of fits) {
      await store.calibrations.save({ engine, model, target: fit.target, temperature: fit.temperature, fitted: fit.fitted, heldOut: fit.heldOut, eceBefore: fit.eceBefore ?? 0, eceAfter: fit.eceAfter ?? 0, fittedAt });
    }
  });
  const failed = [...outcomes.values()].filter((o) => !o.ok).length;
  if (flags.json) {
    process.stdout.write(JSON.stringify({ engine, model, debias, set: file, items: items.length, failed, durationMs: Math.round(performance.now() - started), fits }) + '\n');
    return;
  }
  process.stdout.write(
    `${engine}, model ${model}, debias ${debias}: ${items.length} items of ${file}, fitted on one half and judged on the other` +
      (failed ? ` (${failed} readings failed)` : '') +
      '\n\n' +
      fitTable(fits) +
      `\n\nKept in ${flags.db}: decide serve applies them to ${engine} ${model}; decide calibrate --reset removes them.\n`,
  );
}

function fitTable(fits: readonly Fit[]): string {
  const f = (x: number | null, digits = 3) => (x === null ? '–' : x.toFixed(digits));
  const rows = fits.map((fit) => [
    fit.target,
    f(fit.temperature, 2),
    `${fit.fitted} / ${fit.heldOut}`,
    `${f(fit.eceBefore)} → ${f(fit.eceAfter)}`,
    `${f(fit.logLossBefore)} → ${f(fit.logLossAfter)}`,
  ]);
  return table([['target', 'temperature', 'fitted / held out', 'held-out ECE', 'held-out log loss'], ...rows]);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function show(flags: CalibrateFlags): Promise<void> {
  const all = await withStore(flags.db, ledgerLimits(), (store) => store.calibrations.list());
  if (flags.json) {
    process.stdout.write(JSON.stringify(all) + '\n');
    return;
  }
  if (all.length === 0) {
    process.stdout.write(`No temperatures in ${flags.db}: answers are served as the engines read them. Fit some with decide calibrate.\n`);
    return;
  }
  const rows = all.map((c: Calibration) => [c.engine, c.model, c.target, c.temperature.toFixed(2), `${c.eceBefore.toFixed(3)} → ${c.eceAfter.toFixed(3)}`, c.fittedAt]);
  process.stdout.write(table([['engine', 'model', 'target', 'temperature', 'held-out ECE', 'fitted at'], ...rows]) + '\n');
}

/** Removes the temperatures of the engine and model this configuration runs. */
async function reset(flags: CalibrateFlags): Promise<void> {
  const target = await localTarget(flags);
  await target.close();
  const { name: engine, model } = target.engine;
  const removed = await withStore(flags.db, ledgerLimits(), (store) => store.calibrations.reset({ engine, model }));
  if (flags.json) process.stdout.write(JSON.stringify({ engine, model, removed }) + '\n');
  else process.stdout.write(`Removed ${removed} temperature(s) of ${engine} ${model} from ${flags.db}.\n`);
}
