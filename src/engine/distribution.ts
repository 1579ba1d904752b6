/**
 * Scales non-negative weights to sum to 1. Null when they cannot be a distribution
 * (no mass at all, or a sum that overflowed): the caller turns that into a bad response.
 */
export function normalise(weights: readonly number[]): number[] | null {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (!Number.isFinite(total) || total <= 0) return null;
  return weights.map((w) => w / total);
}
