import { EngineError } from './engine.js';

/** Below this much top-logprob mass on the labels the model was not answering the question. */
export const MIN_LABEL_MASS = 0.5;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Letters keep choice labels one token long in every common tokenizer. */
export function letterLabels(count: number): string[] {
  if (count > LETTERS.length) throw new Error(`a choice question can offer at most ${LETTERS.length} options to a logprob engine, got ${count}`);
  return [...LETTERS.slice(0, count)];
}

/** Single digits for the same reason; "10" would be two tokens sharing "1" with level one. */
export function digitLabels(count: number): string[] {
  if (count > 9) throw new Error(`a score question can offer at most 9 levels to a logprob engine, got ${count}`);
  return Array.from({ length: count }, (_, i) => String(i + 1));
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

/** The label distribution renormalised over the labels, or bad_response when too little mass fell on them. */
export function labelDistribution(top: readonly TopLogprob[], labels: readonly string[], provider: string): number[] {
  const masses = labelMasses(top, labels);
  const total = masses.reduce((sum, m) => sum + m, 0);
  if (!(total >= MIN_LABEL_MASS)) {
    throw new EngineError(
      'bad_response',
      `${provider} engine put only ${total.toFixed(3)} of its probability mass on the labels ${labels.join(', ')} (at least ${MIN_LABEL_MASS} needed)`,
    );
  }
  return masses.map((m) => m / total);
}
