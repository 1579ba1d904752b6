import { canonicalOrder, inCanonicalOrder } from './orders.js';
import type { Reading } from './outcome.js';

/**
 * How a fitted calibration rescales a reading: a temperature, and offsets for where an
 * answer stands or what it is.
 *
 *   p′ᵢ ∝ exp(ln pᵢ / T + oᵢ)
 *
 * - T > 1 softens an overconfident engine's answers, T < 1 sharpens an underconfident
 *   one's; alone it never changes which answer leads.
 * - choice and score: oᵢ is the offset of the place answer i is shown at (orders.ts),
 *   first, in between or last (`offsets` = [first, between, last]): what an engine
 *   gives a place whatever stands there, divided out. A choice's place is among its
 *   options sorted, whatever order the request lists them in; a score's place is the
 *   level (levels are listed low to high), so a bias toward the middle level is the
 *   `between` offset.
 * - noul (and the sufficiency probe, a yes/no reading): oᵢ is `offsets[0]` for yes and
 *   0 for no: a bias toward yes, divided out.
 *
 * Fitted per engine, model, debiasing and target by `decide calibrate` on one half of a
 * labelled set, kept only when the other half's log loss improves beyond noise
 * (eval/calibrate.ts), and kept in the ledger.
 */

export type Target = 'choice' | 'noul' | 'score' | 'sufficiency';

export interface Scaling {
  temperature: number;
  offsets?: readonly number[];
}

export type Scalings = Partial<Record<Target, Scaling>>;

/** The place an answer stands at among k: first (0), in between (1) or last (2). */
export function placeOf(index: number, k: number): 0 | 1 | 2 {
  return index === 0 ? 0 : index === k - 1 ? 2 : 1;
}

/**
 * `p` (normalised, in the order shown: a choice's options sorted, orders.ts) rescaled by
 * `scaling`; yes/no readings are [yes, no].
 */
export function rescaled(mode: 'choice' | 'noul' | 'score', p: readonly number[], scaling: Scaling | undefined): number[] {
  if (!scaling) return [...p];
  const { temperature, offsets } = scaling;
  if (temperature === 1 && !offsets?.some((o) => o !== 0)) return [...p];
  const k = p.length;
  const offset = (i: number) => (!offsets ? 0 : mode === 'noul' ? (i === 0 ? (offsets[0] ?? 0) : 0) : (offsets[placeOf(i, k)] ?? 0));
  // In log space, with a floor so an answer read as exactly 0 stays finite and at the bottom.
  const z = p.map((x, i) => Math.log(Math.max(x, 1e-12)) / temperature + offset(i));
  const top = Math.max(...z);
  const w = z.map((v) => Math.exp(v - top));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / sum);
}

/** The scalings of a list of fitted ones (the ledger's records), by target. */
export function scalingsOf(fitted: ReadonlyArray<{ target: Target; temperature: number; offsets?: readonly number[] | null }>): Scalings {
  return Object.fromEntries(fitted.map((f) => [f.target, { temperature: f.temperature, ...(f.offsets ? { offsets: f.offsets } : {}) }]));
}

/** "choice 2.84 (places +0.41 0 −0.22), noul 1.90 (yes −0.30)": for the operator's start line. */
export function describeScalings(scalings: Scalings): string {
  const parts = Object.entries(scalings).map(([target, s]) => {
    const offsets = s.offsets?.some((o) => o !== 0)
      ? ` (${target === 'noul' || target === 'sufficiency' ? 'yes' : 'places'} ${s.offsets.map((o) => (o === 0 ? '0' : `${o > 0 ? '+' : '−'}${Math.abs(o).toFixed(2)}`)).join(' ')})`
      : '';
    return `${target} ${s.temperature.toFixed(2)}${offsets}`;
  });
  return parts.length ? parts.join(', ') : 'none';
}

/** A main reading with its mode's scaling applied, if one was fitted. */
export function calibrated(reading: Reading, scalings: Scalings): Reading {
  const scaling = scalings[reading.mode];
  if (!scaling) return reading;
  if (reading.mode === 'noul') return { mode: 'noul', yes: rescaled('noul', [reading.yes, 1 - reading.yes], scaling)[0] };
  if (reading.mode === 'score') return { ...reading, p: rescaled('score', reading.p, scaling) };
  // Rescaled in the order the options are shown (sorted, orders.ts), then put back in request order.
  const shown = canonicalOrder(reading.labels);
  const p = new Array<number>(shown.length);
  rescaled('choice', inCanonicalOrder(reading.labels, reading.p), scaling).forEach((x, place) => (p[shown[place]] = x));
  return { ...reading, p };
}

/** The probability that the context suffices, with the probe's scaling applied. */
export function calibratedSufficiency(yes: number, scalings: Scalings): number {
  return rescaled('noul', [yes, 1 - yes], scalings.sufficiency)[0];
}
