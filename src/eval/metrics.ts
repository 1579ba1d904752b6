import { round4 } from '../decision/outcome.js';

/**
 * The figures of an evaluation, as pure functions of readings and labels
 * (docs/eval.md defines each). A reading is a distribution over an item's classes in
 * the item's own order: its options, its levels, or [yes, no].
 */

/** The API reports probabilities in steps of 1e-4: a reported 0 counts as one step in the log loss. */
export const LOG_FLOOR = 1e-4;
export const ECE_BINS = 15;

export interface Scored {
  /** Distribution over the item's classes, summing to 1. */
  p: readonly number[];
  /** Index of the labelled answer among the classes. */
  answer: number;
}

export interface Bin {
  /** [from, to) of the top answer's probability; the last bin includes 1. */
  from: number;
  to: number;
  n: number;
  /** Mean top-answer probability of the bin's readings; null when empty. */
  confidence: number | null;
  /** Share of the bin's readings whose top answer was right; null when empty. */
  accuracy: number | null;
}

export interface Quality {
  n: number;
  accuracy: number | null;
  brier: number | null;
  logLoss: number | null;
  ece: number | null;
  reliability: Bin[];
}

/**
 * Values closer than this are a tie. Readings from an engine in this process are
 * unrounded, so two answers an engine cannot tell apart are equal up to floating-point
 * noise; readings through the API come in steps of 1e-4, so equal steps tie there.
 */
export const TIE = 1e-9;

/** Indices holding the largest value: one, or several on a tie. */
export function topIndices(p: readonly number[]): number[] {
  const max = Math.max(...p);
  return p.flatMap((x, i) => (max - x < TIE ? [i] : []));
}

/**
 * Whether two readings of one item name different top answers: no answer is on top in
 * both. A tie that becomes one of its members, or the reverse, is not a change.
 */
export function topChanged(a: readonly number[], b: readonly number[]): boolean {
  const tops = topIndices(b);
  return !topIndices(a).some((i) => tops.includes(i));
}

/** The normalised peak (k·pmax − 1)/(k − 1) the API reports as `confidence`: 0 uniform, 1 certain. */
export function peak(p: readonly number[]): number {
  const k = p.length;
  return Math.min(1, Math.max(0, (k * Math.max(...p) - 1) / (k - 1)));
}

/**
 * How right a reading's top answer is: 1 or 0, and on a tie for the top the share
 * 1/t when the answer is among the t tied classes, so an engine that cannot decide
 * scores what a coin would, never more.
 */
export function correctness(s: Scored): number {
  const tops = topIndices(s.p);
  return tops.includes(s.answer) ? 1 / tops.length : 0;
}

/** Multi-class Brier score: Σₖ (pₖ − yₖ)², from 0 (certain and right) to 2 (certain and wrong). */
export function brier(s: Scored): number {
  return s.p.reduce((sum, pk, k) => sum + (pk - (k === s.answer ? 1 : 0)) ** 2, 0);
}

/** −ln p(answer), with p floored at LOG_FLOOR so one confident miss is large but finite. */
export function logLoss(s: Scored): number {
  return -Math.log(Math.max(LOG_FLOOR, s.p[s.answer]));
}

/**
 * Reliability of the top answer's probability in ECE_BINS equal-width bins, and the
 * expected calibration error: Σ_b (n_b / n)·|accuracy_b − confidence_b|.
 */
export function reliability(scored: readonly Scored[]): { bins: Bin[]; ece: number | null } {
  const sums = Array.from({ length: ECE_BINS }, () => ({ n: 0, confidence: 0, correct: 0 }));
  for (const s of scored) {
    const confidence = Math.max(...s.p);
    const bin = sums[Math.min(ECE_BINS - 1, Math.floor(confidence * ECE_BINS))];
    bin.n++;
    bin.confidence += confidence;
    bin.correct += correctness(s);
  }
  const bins = sums.map(({ n, confidence, correct }, b) => ({
    from: round(b / ECE_BINS),
    to: round((b + 1) / ECE_BINS),
    n,
    confidence: n ? round(confidence / n) : null,
    accuracy: n ? round(correct / n) : null,
  }));
  if (scored.length === 0) return { bins, ece: null };
  const ece = sums.reduce((acc, { n, confidence, correct }) => acc + (n ? Math.abs(correct - confidence) : 0), 0) / scored.length;
  return { bins, ece: round(ece) };
}

export function quality(scored: readonly Scored[]): Quality {
  const { bins, ece } = reliability(scored);
  return {
    n: scored.length,
    accuracy: mean(scored.map(correctness)),
    brier: mean(scored.map(brier)),
    logLoss: mean(scored.map(logLoss)),
    ece,
    reliability: bins,
  };
}

/** Total variation distance between two distributions over the same classes. */
export function totalVariation(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, x, i) => sum + Math.abs(x - b[i]), 0) / 2;
}

/**
 * The area under the ROC curve of `score` separating positives from negatives: the
 * probability that a random positive scores above a random negative, ties counting
 * one half (the Mann–Whitney statistic). Null when either side is empty.
 */
export function auroc(positives: readonly number[], negatives: readonly number[]): number | null {
  if (positives.length === 0 || negatives.length === 0) return null;
  const all = [...positives.map((v) => ({ v, pos: true })), ...negatives.map((v) => ({ v, pos: false }))].sort((a, b) => a.v - b.v);
  // Average ranks over ties, then U = Σ ranks of positives − n₊(n₊ + 1)/2.
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j].v === all[i].v) j++;
    const averageRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k].pos) rankSum += averageRank;
    i = j;
  }
  const n1 = positives.length;
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  return round(u / (n1 * negatives.length));
}

export function mean(values: readonly number[]): number | null {
  return values.length ? round(values.reduce((a, b) => a + b, 0) / values.length) : null;
}

/** Figures are reported to 4 decimals, as the API reports probabilities. */
export const round = round4;
