import type { Stress } from '../contract/answer.js';
import { round4 } from './outcome.js';

/**
 * Context sufficiency at stress depth: the engine's own yes/no assessment, weighed
 * with what the without-fact checks showed.
 *
 * A self-assessment is one more answer of the model and can say nothing (a probe
 * that answers 0.5 for every context); the checks are behaviour. An answer that moves
 * when one fact is taken out rests on what the context says, so in log-odds
 *
 *   logit(s′) = logit(s) + logit((1 + g) / 2)
 *
 * with `g` the largest shift of a without-fact check (a total variation distance in
 * [0, 1]): no shift adds nothing, a shift of 0.5 is worth odds of 3 : 1, and `g` is
 * capped at 0.98 (odds of 99 : 1), so no single check makes the context certain.
 * When no fact moves the answer the checks say nothing of sufficiency (the facts may
 * repeat one another, or the context may lack what decides), and the
 * self-assessment stands.
 *
 * The reversed check does not enter: weighing it too lowered the AUROC on a
 * simulated model with a position bias (0.94 → 0.90), because a bias the whole model
 * shares says nothing of one context; it is reported in the checks, and order
 * debiasing is what corrects it.
 */
export function groundedSufficiency(selfAssessed: number, stress: Stress): number {
  let g = 0;
  for (const check of stress.checks) if (check.kind === 'without-fact') g = Math.max(g, check.shift);
  return round4(sigmoid(logit(selfAssessed) + logit((1 + Math.min(CAP, g)) / 2)));
}

const CAP = 0.98;
const EDGE = 1e-6;

const logit = (p: number): number => {
  const q = Math.min(1 - EDGE, Math.max(EDGE, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
