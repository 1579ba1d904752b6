import { performance } from 'node:perf_hooks';
import { fitAll, MIN_READINGS, type Fit } from '../eval/calibrate.js';
import { sizesOf, slotsOf } from '../eval/calibration-readings.js';
import { planEval } from '../eval/plan.js';
import type { Outcome } from '../eval/run.js';
import { describeSizes, keptLine } from './calibrate-view.js';
import { defaultDebias } from '../decision/debias.js';
import { calibrationModel, engineIdentity } from './engine-identity.js';
import { engineEnv } from './engine-startup.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';
import { askShowingProgress, DEFAULT_SET, loadSet, localTarget, type EvalFlags } from './eval.js';
import { ledgerLimits, withStore } from './ledger-access.js';
import type { Debias } from '../contract/debias.js';
import { counted } from '../contract/words.js';

export interface CalibrateFlags extends Pick<EvalFlags, 'set' | 'limit' | 'concurrency' | 'json' | 'model' | 'threads' | 'debias'> {
  db: string;
  show?: boolean;
  reset?: boolean;
}

/**
 * `decide calibrate`: fits a temperature per target for the engine `decide serve`
 * would run on the even half of the set, judges it on the odd half, and keeps in the
 * ledger, where `serve` (and `eval --db`) apply it to that engine and model, either
 * the fit (when it helped the held-out readings beyond noise) or T = 1.
 */
export async function runCalibrate(flags: CalibrateFlags): Promise<void> {
  if (flags.show) return show(flags);
  if (flags.reset) return reset(flags);

  const file = flags.set ?? DEFAULT_SET;
  const items = loadSet(file, flags.limit);
  const full = planEval(items);
  // The readings as asked: those in other orders only measure position bias.
  const plan = { ...full, asks: full.asks.filter((ask) => ask.variant === 'given' || ask.variant === 'without-fact') };
  // Refused before any engine starts: a set this small can only be a mistake.
  const sizes = sizesOf(slotsOf(plan));
  if (![...sizes.values()].some((h) => h.even >= MIN_READINGS && h.odd >= MIN_READINGS)) {
    throw new Failure(
      `${file} is too small to fit any temperature: ${counted(items.length, 'item')} ${items.length === 1 ? 'gives' : 'give'} ` +
        `${describeSizes(sizes)} readings (to fit / held out); ` +
        `a target needs ${MIN_READINGS} in each half`,
      CLIENT_EXIT.usage,
    );
  }
  const target = await localTarget(flags);
  const started = performance.now();
  const outcomes = await askShowingProgress(plan.asks, target, flags);
  const fits = fitAll(plan, outcomes);
  const failures = [...outcomes.values()].filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
  if (failures.length === outcomes.size)
    throw new Failure(`every reading failed (${codes(failures)}): nothing to fit`, CLIENT_EXIT.service);
  if (fits.every((fit) => fit.stored === null)) {
    throw new Failure(
      `${failures.length} of ${outcomes.size} readings failed (${codes(failures)}): too few left to fit any temperature ` +
        `(${fits.map((f) => `${f.target} ${f.fitted} / ${f.heldOut}`).join(', ')}; ${MIN_READINGS} in each half needed)`,
      CLIENT_EXIT.service,
    );
  }
  const { name: engine, model } = target.engine;
  const debias = target.engine.debias ?? defaultDebias(engine);
  await save(flags.db, { engine, model: calibrationModel(engineEnv(flags), target.engine), debias }, fits);
  const failed = failures.length;
  if (flags.json) {
    process.stdout.write(
      JSON.stringify({
        engine,
        model,
        debias,
        set: file,
        items: items.length,
        failed,
        durationMs: Math.round(performance.now() - started),
        fits,
      }) + '\n',
    );
    return;
  }
  const intro =
    `${engine}, model ${model}, debias ${debias}: ${items.length} items of ${file}, fitted on the even half and judged on the odd half` +
    (failed ? ` (${failed} readings failed)` : '');
  const kept = keptLine(fits, flags.db, engine, model);
  (await import('./ui/calibrate-report.js')).printFitReport(intro, fits, kept);
}

/**
 * A kept fit is stored as fitted; one that did not help is stored as T = 1, which
 * replaces any earlier fit's effect and shows in `--show` that a fit was tried; a
 * target too small to fit is left as the ledger had it.
 */
async function save(db: string, of: { engine: string; model: string; debias: Debias }, fits: readonly Fit[]): Promise<void> {
  const fittedAt = new Date().toISOString();
  await withStore(db, ledgerLimits(), async (store) => {
    for (const fit of fits) {
      if (fit.stored === null) continue;
      const eceAfter = fit.kept ? fit.eceAfter! : fit.eceBefore!;
      await store.calibrations.save({
        ...of,
        target: fit.target,
        temperature: fit.stored,
        offsets: fit.storedOffsets,
        fitted: fit.fitted,
        heldOut: fit.heldOut,
        eceBefore: fit.eceBefore!,
        eceAfter,
        fittedAt,
      });
    }
  });
}

function codes(failures: ReadonlyArray<{ code: string }>): string {
  const counts = new Map<string, number>();
  for (const { code } of failures) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts].map(([code, n]) => `${code} ${n}`).join(', ');
}

/** Every temperature the ledger holds, whatever engine is configured: no engine is started. */
async function show(flags: CalibrateFlags): Promise<void> {
  const all = await withStore(flags.db, ledgerLimits(), (store) => store.calibrations.list());
  if (flags.json) process.stdout.write(JSON.stringify(all) + '\n');
  else if (all.length === 0)
    process.stdout.write(`No temperatures in ${flags.db}: answers are served as the engines read them. Fit some with decide calibrate.\n`);
  else {
    (await import('./ui/calibrate-report.js')).printCalibrations(all);
  }
}

/** Removes the temperatures of the engine and model this configuration names, without starting the engine. */
async function reset(flags: CalibrateFlags): Promise<void> {
  const env = engineEnv(flags);
  const identity = engineIdentity(env);
  const { name: engine } = identity;
  const model = calibrationModel(env, identity);
  const removed = await withStore(flags.db, ledgerLimits(), (store) => store.calibrations.reset({ engine, model }));
  if (flags.json) process.stdout.write(JSON.stringify({ engine, model, removed }) + '\n');
  else process.stdout.write(`Removed ${counted(removed, 'temperature')} of ${engine} ${model} from ${flags.db}.\n`);
}
