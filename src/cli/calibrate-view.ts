import { describeScalings, type Target } from '../decision/scaling.js';
import type { Halves } from '../eval/calibration-readings.js';
import { signed, type Fit } from '../eval/calibrate.js';
import type { Calibration } from '../ledger/store.js';
import { clockWords } from './when.js';

/** What `decide calibrate` prints as text: the fits as a table (its header first), laid out by ui/calibrate-report.tsx. */
export function fitRows(fits: readonly Fit[]): string[][] {
  const f = (x: number | null, digits = 3) => (x === null ? '–' : x.toFixed(digits));
  const rows = fits.map((fit) => [
    fit.target,
    fit.temperature === null ? '–' : fit.temperature.toFixed(2) + (fit.boundHit ? ' (bound)' : ''),
    fit.stored === null ? 'not fitted' : fit.kept ? 'yes' : 'no, T = 1',
    `${fit.fitted} / ${fit.heldOut}`,
    fit.eceBefore === null ? '–' : `${f(fit.eceBefore)} → ${f(fit.eceAfter)}`,
    fit.logLossBefore === null ? '–' : `${f(fit.logLossBefore)} → ${f(fit.logLossAfter)}`,
    fit.logLossInterval === null
      ? '–'
      : `${signed(fit.logLossDifference!)} [${signed(fit.logLossInterval.low)}, ${signed(fit.logLossInterval.high)}]`,
  ]);
  const header = ['target', 'temperature', 'kept', 'fitted / held out', 'held-out ECE', 'held-out log loss', 'change [95 %]'];
  return [header, ...rows];
}

/** The closing line: what serve now applies, and what was left as it was. */
export function keptLine(fits: readonly Fit[], db: string, engine: string, model: string): string {
  const kept = fits
    .filter((f) => f.kept)
    .map((f) => describeScalings({ [f.target]: { temperature: f.temperature!, offsets: f.storedOffsets ?? undefined } }));
  const ones = fits.filter((f) => f.stored === 1).map((f) => f.target);
  const untouched = fits.filter((f) => f.stored === null).map((f) => f.target);
  const applied = kept.length
    ? `decide serve applies ${kept.join(', ')} to ${engine} ${model}`
    : `decide serve applies no temperature to ${engine} ${model}`;
  const parts = [
    `Kept in ${db}: ${applied}`,
    ...(ones.length ? [`T = 1 stored for ${ones.join(', ')}`] : []),
    ...(untouched.length ? [`${untouched.join(', ')} left as before`] : []),
  ];
  return `${parts.join('; ')}. decide calibrate --reset removes them.`;
}

/** "choice 3 / 2, sufficiency 9 / 10": readings to fit / held out, per target. */
export function describeSizes(sizes: ReadonlyMap<Target, Halves<number>>): string {
  return [...sizes].map(([target, { even, odd }]) => `${target} ${even} / ${odd}`).join(', ') || 'none';
}

/** What `--show` prints: every temperature the ledger holds, a stored 1 marked as applying nothing (its header first). */
export function calibrationRows(all: readonly Calibration[]): string[][] {
  const rows = all.map((c) => [
    c.engine,
    c.model,
    c.target,
    c.temperature === 1 && !c.offsets
      ? '1 (not kept: none applied)'
      : describeScalings({ [c.target]: { temperature: c.temperature, offsets: c.offsets ?? undefined } }).replace(`${c.target} `, ''),
    `${c.eceBefore.toFixed(3)} → ${c.eceAfter.toFixed(3)}`,
    clockWords(c.fittedAt),
  ]);
  return [['engine', 'model', 'target', 'temperature', 'held-out ECE', 'fitted at'], ...rows];
}
