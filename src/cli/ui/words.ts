import type { DecisionResponse, DecisionResult, Signal, Stress, StressCheck } from '../../contract/index.js';
import * as wording from '../../contract/wording.js';
import { percent, shares } from './percent.js';

/**
 * The words and numbers of the human output, apart from the components that lay them
 * out, so both are tested on their own. The words the pass page prints too, and
 * their thresholds, are the contract's (contract/wording.ts).
 */

export {
  noPivotWords,
  stressHeadline,
  sufficiencyLevel,
  sufficiencyWords,
  verdictOf,
  VERDICTS,
} from '../../contract/wording.js';

/** Cells of a bar of `width` for probability p: [filled, empty]. */
export function barCells(p: number, width: number): [number, number] {
  const filled = Math.max(0, Math.min(width, Math.round(p * width)));
  return [filled, width - filled];
}

export interface Row {
  label: string;
  p: number;
  /** The percentage shown; those of one answer sum to exactly 100.0%. */
  share: string;
  /** The answer the result points to (selected option, likeliest level, the side of yes/no). */
  top: boolean;
}

/**
 * One row per option, level, or Yes/No, in the order the API gave them. A yes/no at
 * exactly 50% leans neither way, so neither row is marked.
 */
export function rowsOf(result: DecisionResult): Row[] {
  let rows: Array<Omit<Row, 'share'>>;
  if ('yesProbability' in result) {
    const yes = result.yesProbability;
    rows = [
      { label: 'Yes', p: yes, top: yes > 0.5 },
      { label: 'No', p: Math.round((1 - yes) * 1e4) / 1e4, top: yes < 0.5 },
    ];
  } else {
    const best = wording.leadingAnswer(result);
    rows = Object.entries(result.probabilities).map(([label, p]) => ({ label, p, top: label === best }));
  }
  const shown = shares(rows.map((row) => row.p));
  return rows.map((row, i) => ({ ...row, share: shown[i] }));
}

/**
 * The first of a view's key-value lines: what the result is, labelled. The top answer
 * comes with its probability as its bar shows it, and its confidence in words
 * (contract/wording.ts `confidenceWords`), never as a bare percentage. A score's
 * likeliest level comes first, as its bar is marked; the score, the mean level, after.
 */
export function resultLines(result: DecisionResult): Array<[label: string, value: string]> {
  const rows = rowsOf(result);
  if ('yesProbability' in result) return [['Probability of yes', rows[0].share]];
  const top = rows.find((row) => row.top);
  const topWords = `${top?.label}, ${top?.share} (${wording.confidenceWords(result.confidence)})`;
  if ('selected' in result) return [['Selected', topWords]];
  const levels = Object.keys(result.probabilities);
  return [
    ['Likeliest', topWords],
    ['Score', `${result.score.toFixed(2)}, the mean level on 0 (${levels[0]}) to 2 (${levels[2]})`],
  ];
}

/** The top answer of a result in a few words: an option, a level, or "yes 62.5%" ("even 50.0%" at exactly 50%). */
export function topAnswer(result: DecisionResult): string {
  if ('yesProbability' in result) {
    const yes = result.yesProbability;
    return `${yes > 0.5 ? 'yes' : yes < 0.5 ? 'no' : 'even'} ${percent(yes)}`;
  }
  return wording.leadingAnswer(result);
}

/** The signal and what it means for this answer. */
export function signalWords(response: Pick<DecisionResponse, 'signal' | 'result' | 'labelMass'>): string {
  return wording.signalWords(response.signal, response.result, response.labelMass);
}

export type Tone = wording.Tone;
export function signalTone(signal: Signal): Tone {
  return signal === 'directional' || signal === 'yes' ? 'good' : signal === 'no' ? 'bad' : 'doubt';
}

/**
 * A check of a stress test, named for a table row, its fact quoted up to `factChars`
 * (the table wraps it; a very long fact is cut, and the pivot's is shown below the
 * table). Facts are numbered from 1 for people.
 */
export function checkName(check: StressCheck, factChars = 90): string {
  if (check.kind === 'reversed') return wording.checkLabel(check);
  return `${wording.checkLabel(check)}: ${quote(check.fact, factChars)}`;
}

/**
 * `text` in quotes, cut to at most `maxChars` characters with "…": at the last space
 * that keeps at least half of them, so no word is broken, else mid-word (one
 * endless word).
 */
export function quote(text: string, maxChars: number): string {
  const chars = [...text.trim()];
  if (chars.length <= maxChars) return `"${chars.join('')}"`;
  const room = chars.slice(0, Math.max(1, maxChars - 1));
  const space = room.lastIndexOf(' ');
  const kept = space >= room.length / 2 ? room.slice(0, space) : room;
  return `"${kept.join('').trimEnd()}…"`;
}

/**
 * What a stress table's Shift is, in words: the total variation distance between the
 * answer's probabilities and the check's (half the sum of their differences), which
 * is the share of probability that moved from some answers to others.
 */
export const SHIFT_WORDS =
  'Shift: how far the answer moves in that check, from 0% (not at all) to 100% (wholly onto other answers): ' +
  'the share of probability that moves between the answers (their total variation distance).';

/** Facts (0-based) whose leaving out moves the answer exactly as much as the pivot's: the service names the first. */
export function tiedWithPivot({ checks, pivot }: Pick<Stress, 'checks' | 'pivot'>): number[] {
  if (!pivot) return [];
  return checks.flatMap((check) =>
    check.kind === 'without-fact' && check.factIndex !== pivot.factIndex && check.shift === pivot.shift ? [check.factIndex] : [],
  );
}

/** Access after the charge, and timing, for the closing line. */
export function footerWords(response: DecisionResponse): string {
  const access =
    response.access.type === 'free'
      ? `free decisions left today: ${response.access.freeRemaining}`
      : `pass credits left: ${response.access.passCredits}`;
  const model =
    typeof response.labelMass === 'number'
      ? `model ${response.model}, ${wording.labelMassWords(response.labelMass)}`
      : `model ${response.model}`;
  return [access, model, `${response.timing.processingMs} ms`].join(' · ');
}

/** "5 h 12 min" from now until `iso`. */
export function untilWords(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((Date.parse(iso) - now) / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
