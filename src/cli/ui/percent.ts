/**
 * Probabilities as the terminal shows them, in per cent. The API reports steps of
 * 1e-4 (0.6905), that is hundredths of a per cent; the bars show tenths. Everything
 * here works on whole steps, so no binary fraction decides a rounding (69.05 is
 * 69.04999… as a double, and `toFixed` would round it down).
 */

/** Hundredths of a per cent: the API's 4-decimal steps as whole numbers. */
const steps = (p: number): number => Math.round(p * 10_000);

/** Tenths of a per cent as text: 691 → "69.1%". */
const tenthsText = (tenths: number): string => `${Math.floor(tenths / 10)}.${tenths % 10}%`;

/** One value, to a whole per cent (half up): 0.145 → "15%"; the pass page shows it alike. */
export { wholePercent } from '../../contract/wording.js';

/** One value, to a tenth of a per cent (half up): 0.6905 → "69.1%". */
export function percent(p: number): string {
  return tenthsText(Math.floor((steps(p) + 5) / 10));
}

/**
 * The shares of one answer (an option each, or Yes and No), to a tenth of a per cent,
 * summing to exactly what the values sum to: 100.0% for a distribution. Rounding each
 * on its own can show 69.1% and 31.0% (100.1%) for 0.6905 and 0.3095. Each is floored
 * and the tenths left over go to the largest remainders (on a tie, to the larger
 * value, then the earlier one), so every share moves by less than a tenth and a
 * larger value never shows less.
 */
export function shares(ps: readonly number[]): string[] {
  const units = ps.map(steps);
  const tenths = units.map((u) => Math.floor(u / 10));
  const total = Math.round(units.reduce((sum, u) => sum + u, 0) / 10);
  let missing = total - tenths.reduce((sum, t) => sum + t, 0);
  const byRemainder = units.map((_, i) => i).sort((a, b) => (units[b] % 10) - (units[a] % 10) || units[b] - units[a] || a - b);
  for (const i of byRemainder) {
    if (missing <= 0) break;
    tenths[i]++;
    missing--;
  }
  return tenths.map(tenthsText);
}

/**
 * Decimals of per cent for a column of values (the shifts of a stress test): one, or
 * two (the API's own precision, so no two different values look alike) when one
 * decimal would show two different values the same. The pivot is the largest shift,
 * so it then stands apart from a fact whose shift is close to it.
 */
export function columnDecimals(ps: readonly number[]): 1 | 2 {
  const shown = new Map<string, number>();
  for (const p of ps) {
    const text = percent(p);
    const before = shown.get(text);
    if (before !== undefined && before !== steps(p)) return 2;
    shown.set(text, steps(p));
  }
  return 1;
}

/** A value to `decimals` of a per cent: one (half up, as `percent`) or two (exact). */
export function percentTo(p: number, decimals: 1 | 2): string {
  if (decimals === 1) return percent(p);
  const u = steps(p);
  return `${Math.floor(u / 100)}.${String(u % 100).padStart(2, '0')}%`;
}
