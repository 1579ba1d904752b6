import type { DecisionResponse, DecisionResult, Signal, StressCheck } from '../../contract/index.js';

/**
 * The words and numbers of the human output, apart from the components that lay them
 * out, so both are tested on their own and the thresholds live in one place.
 */

export const percent = (p: number): string => `${(p * 100).toFixed(1)}%`;
export const wholePercent = (p: number): string => `${Math.round(p * 100)}%`;

/** Cells of a bar of `width` for probability p: [filled, empty]. */
export function barCells(p: number, width: number): [number, number] {
  const filled = Math.max(0, Math.min(width, Math.round(p * width)));
  return [filled, width - filled];
}

export interface Row {
  label: string;
  p: number;
  /** The answer the result points to (selected option, likeliest level, the side of yes/no). */
  top: boolean;
}

/** One row per option, level, or Yes/No, in the order the API gave them. */
export function rowsOf(result: DecisionResult): Row[] {
  if ('yesProbability' in result) {
    const yes = result.yesProbability;
    return [
      { label: 'Yes', p: yes, top: yes >= 0.5 },
      { label: 'No', p: Math.round((1 - yes) * 1e4) / 1e4, top: yes < 0.5 },
    ];
  }
  const entries = Object.entries(result.probabilities);
  const best = 'selected' in result ? result.selected : topKey(result.probabilities);
  return entries.map(([label, p]) => ({ label, p, top: label === best }));
}

function topKey(probabilities: Record<string, number>): string | undefined {
  let best: string | undefined;
  for (const [key, p] of Object.entries(probabilities)) if (best === undefined || p > probabilities[best]) best = key;
  return best;
}

/** The top answer of a result in a few words: an option, a level, or "yes 62%". */
export function topAnswer(result: DecisionResult): string {
  if ('yesProbability' in result) return `${result.yesProbability >= 0.5 ? 'yes' : 'no'} ${wholePercent(result.yesProbability)}`;
  if ('selected' in result) return result.selected;
  return topKey(result.probabilities) ?? '';
}

/** The signal and what it means for this answer. */
export function signalWords(response: Pick<DecisionResponse, 'signal' | 'result'>): string {
  const words: Record<Signal, string> = {
    directional: `directional: "${topAnswer(response.result)}" leads the next answer by 15 points or more`,
    yes: 'yes: the probability of yes is 60% or more',
    no: 'no: the probability of yes is 40% or less',
    unclear: 'yesProbability' in response.result ? 'unclear: the probability of yes lies between 40% and 60%' : 'unclear: no answer leads by 15 points or more',
    'needs-context': 'needs context: the facts given are not enough to decide; add facts and ask again',
  };
  return words[response.signal];
}

/** Context sufficiency in words, with its value. */
export function sufficiencyWords(sufficiency: number): string {
  const words = sufficiency >= 0.8 ? 'sufficient' : sufficiency >= 0.5 ? 'partly sufficient' : 'insufficient, more facts are needed';
  return `${words} (${wholePercent(sufficiency)})`;
}

export type Tone = 'good' | 'bad' | 'doubt';
export function signalTone(signal: Signal): Tone {
  return signal === 'directional' || signal === 'yes' ? 'good' : signal === 'no' ? 'bad' : 'doubt';
}

/** A check of a stress test, named for a table row. Facts are numbered from 1 for people. */
export function checkName(check: StressCheck, maxChars = 48): string {
  if (check.kind === 'reversed') return 'order reversed';
  return `without fact ${check.factIndex + 1}: ${quote(check.fact, maxChars - 18)}`;
}

export function quote(text: string, maxChars: number): string {
  const chars = [...text.trim()];
  return `"${chars.length > maxChars ? chars.slice(0, Math.max(1, maxChars - 1)).join('') + '…' : chars.join('')}"`;
}

/** Access after the charge, and timing, for the closing line. */
export function footerWords(response: DecisionResponse): string {
  const access =
    response.access.type === 'free'
      ? `free decisions left today: ${response.access.freeRemaining}`
      : `pass credits left: ${response.access.passCredits}`;
  return [access, `model ${response.model}`, `${response.timing.processingMs} ms`].join(' · ');
}

/** "5 h 12 min" from now until `iso`. */
export function untilWords(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((Date.parse(iso) - now) / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
