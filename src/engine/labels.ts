import { EngineError } from './engine.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The most labels one logprob reading offers: `top_logprobs` returns at most 20
 * tokens, and a label outside them reads as 0. A choice of more options is read in
 * groups of at most this many (grouped.ts); up to 20 it is one call, as it always
 * was, since a grouped reading compounds the noise of its two steps (measured in
 * test/engine/grouped-accuracy.test.ts: on the same 20 options, one call decides
 * better than groups do).
 */
export const MOST_LOGPROB_LABELS = 20;

/**
 * A, B, …, Z, then AA, AB, … (as spreadsheet columns): 255 options end at IU. The
 * first 26 are one token in every common tokenizer, which a logprob reading needs
 * (it never offers more than MOST_LOGPROB_LABELS); engines that have the model state
 * its probabilities take the two-letter ones as property names.
 */
export function letterLabels(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i < 26 ? LETTERS[i] : LETTERS[Math.floor(i / 26) - 1] + LETTERS[i % 26]));
}

/**
 * Score levels as single digits, so each is one token: 1 to k, and 0 to 9 for ten
 * levels ("10" would be two tokens sharing "1" with level one).
 */
export function levelLabels(count: number): string[] {
  if (count > 10) throw new Error(`a score question can offer at most 10 levels, got ${count}`);
  const first = count === 10 ? 0 : 1;
  return Array.from({ length: count }, (_, i) => String(i + first));
}

export type TopLogprob = { token: string; logprob: number };

function fold(text: string): string {
  return text.trim().toLowerCase();
}

/**
 * Probability mass per label: the sum of exp(logprob) over the top tokens that trim and
 * case-fold to that label, so " yes", "Yes" and "YES" all count for "Yes".
 */
export function labelMasses(top: readonly TopLogprob[], labels: readonly string[]): number[] {
  const index = new Map(labels.map((label, i) => [fold(label), i] as const));
  const masses = labels.map(() => 0);
  for (const { token, logprob } of top) {
    const i = index.get(fold(token));
    if (i !== undefined) masses[i] += Math.exp(logprob);
  }
  return masses;
}

/**
 * The label distribution renormalised over the labels, and the share of the top
 * logprobs' mass they held (a lower bound of their share of the whole vocabulary:
 * tokens outside the top ones count for nothing). bad_response only when the labels
 * held none of it: a small share is an answer, and the decision says how little it
 * rests on (contract/wording.ts `LOW_LABEL_MASS`).
 */
export function labelDistribution(
  top: readonly TopLogprob[],
  labels: readonly string[],
  provider: string,
): { p: number[]; labelMass: number } {
  const masses = labelMasses(top, labels);
  const total = masses.reduce((sum, m) => sum + m, 0);
  if (!(total > 0 && Number.isFinite(total))) {
    throw new EngineError(
      'bad_response',
      `${provider} engine put none of its top-token probability on the labels ${labels.join(', ')}: the model was not answering the question`,
    );
  }
  return { p: masses.map((m) => m / total), labelMass: Math.min(1, total) };
}
