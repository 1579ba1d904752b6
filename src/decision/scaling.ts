/**
 * How a fitted calibration rescales one reading: a temperature, and offsets for where
 * an answer stands or what it is.
 *
 *   p′ᵢ ∝ exp(ln pᵢ / T + oᵢ)
 *
 * - T > 1 softens an overconfident engine's answers, T < 1 sharpens an underconfident
 *   one's; alone it never changes which answer leads.
 * - choice and score: oᵢ is the offset of the place answer i stands at in the request,
 *   first, in between or last (`offsets` = [first, between, last]): what an engine
 *   gives a place whatever stands there, divided out. For score the place is the level
 *   (the request lists levels low to high), so a bias toward the middle level is the
 *   `between` offset.
 * - noul: oᵢ is `offsets[0]` for yes and 0 for no: a bias toward yes, divided out.
 *
 * Fitted by `decide calibrate` on one half of a labelled set and kept only when the
 * other half's log loss improves beyond noise (eval/calibrate.ts).
 */

export interface Scaling {
  temperature: number;
  offsets?: readonly number[];
}

/** The place an answer stands at among k: first (0), in between (1) or last (2). */
export function placeOf(index: number, k: number): 0 | 1 | 2 {
  return index === 0 ? 0 : index === k - 1 ? 2 : 1;
}

/** `p` (normalised, in request order) rescaled by `scaling`; noul readings are [yes, no]. */
export function rescaled(mode: 'choice' | 'noul' | 'score', p: readonly number[], scaling: Scaling): number[] {
  const { temperature, offsets } = scaling;
  if (temperature === 1 && !offsets?.some((o) => o !== 0)) return [...p];
  const k = p.length;
  const offset = (i: number) => (!offsets ? 0 : mode === 'noul' ? (i === 0 ? offsets[0] ?? 0 : 0) : offsets[placeOf(i, k)] ?? 0);
  // In log space, with a floor so an answer read as exactly 0 stays finite and at the bottom.
  const z = p.map((x, i) => Math.log(Math.max(x, 1e-12)) / temperature + offset(i));
  const top = Math.max(...z);
  const w = z.map((v) => Math.exp(v - top));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / sum);
}
