import { z } from 'zod';
import { correctness, peak, type Scored } from './metrics.js';

/**
 * Acting only on answers the engine is sure enough of: what users of a decision
 * service compute by hand to gate on `confidence` (the normalised peak the API
 * reports, comparable across option counts). The risk–coverage table gives, for each
 * cut-point, the share of decisions it lets through and how often those are right;
 * with a target accuracy, the lowest cut-point whose covered share reaches it.
 */

const figure = z.number().nullable();
const Row = z.object({ cut: z.number(), coverage: figure, accuracy: figure });
export const Target = z.object({
  accuracy: z.number(),
  /** The lowest confidence cut-point whose covered answers reach `accuracy`; null when none does. */
  cut: figure,
  coverage: figure,
  reached: figure,
});
export const Gating = z.object({ n: z.int(), riskCoverage: z.array(Row), target: Target.optional() });
export type Gating = z.infer<typeof Gating>;

export const CUTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

interface Gated {
  confidence: number;
  right: number;
}

export function gating(scored: readonly Scored[], targetAccuracy?: number): Gating {
  const gated = scored.map((s) => ({ confidence: peak(s.p), right: correctness(s) }));
  return {
    n: gated.length,
    riskCoverage: CUTS.map((cut) => ({ cut, ...covered(gated, cut) })),
    ...(targetAccuracy === undefined ? {} : { target: target(gated, targetAccuracy) }),
  };
}

function covered(gated: readonly Gated[], cut: number): { coverage: number | null; accuracy: number | null } {
  if (gated.length === 0) return { coverage: null, accuracy: null };
  const kept = gated.filter((g) => g.confidence >= cut);
  return {
    coverage: round(kept.length / gated.length),
    accuracy: kept.length ? round(kept.reduce((a, g) => a + g.right, 0) / kept.length) : null,
  };
}

/** Scans the cut-points the readings offer (their own confidences), lowest first. */
function target(gated: readonly Gated[], accuracy: number): z.infer<typeof Target> {
  const byConfidence = [...gated].sort((a, b) => b.confidence - a.confidence);
  // Accuracy of the answers at or above each confidence, from the surest down, then the lowest that reaches it.
  let right = 0;
  let best: { cut: number; coverage: number; reached: number } | null = null;
  for (let i = 0; i < byConfidence.length; i++) {
    right += byConfidence[i].right;
    const last = i === byConfidence.length - 1 || byConfidence[i + 1].confidence < byConfidence[i].confidence;
    if (!last) continue;
    const reached = right / (i + 1);
    if (reached >= accuracy) best = { cut: byConfidence[i].confidence, coverage: (i + 1) / gated.length, reached };
  }
  return best
    ? { accuracy, cut: round(best.cut), coverage: round(best.coverage), reached: round(best.reached) }
    : { accuracy, cut: null, coverage: null, reached: null };
}

const round = (x: number) => Math.round(x * 10_000) / 10_000 + 0;
