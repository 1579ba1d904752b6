import type { DecisionResult, Signal, Stress, StressCheck } from './answer.js';

/**
 * The words a person reads about an answer, and the thresholds behind them, written
 * once for the CLI's views and the pass page. The page's scripts have no build step:
 * the server sends this module to the browser as it is (web/wording-script.ts), each
 * constant as JSON and each function as its own source. So a function here uses only
 * its arguments, the constants and the other functions of this module, and imports
 * nothing but types.
 */

/**
 * Below this shift (total variation distance) a fact that does not flip the answer
 * is not said to decide it: removing it moved less than a tenth of the probability.
 * The service names the pivot by it (decision/stress.ts); the words say it.
 */
export const PIVOT_MIN_SHIFT = 0.1;

/**
 * How much further than the engine's own noise (`noiseOf`) leaving a fact out must
 * move the answer for that fact to decide it. Chosen on the set's even half, on both
 * real models and a simulated model whose reading moves with any change of its prompt
 * (docs/eval.md, "When a fact decides").
 */
export const PIVOT_NOISE_RATIO = 1.5;

/**
 * The low-mass rule, one for every engine that reads token probabilities: an answer
 * whose readings put less than this share of the model's next-token probability on
 * the answers' labels (`labelMass`) is `unclear` whatever its renormalised figures say
 * (decision/outcome.ts), and a System One question is refused (decision/ask-each.ts).
 * Here, with the words that say it, as the pass page reads them from this file alone.
 */
export const LOW_LABEL_MASS = 0.5;

/**
 * The engine's own noise on a stress test's question, beside the check of fact
 * `factIndex`: the larger of the reversed check's shift (the same facts, only the
 * order changed; repeating the request moves nothing on the local engine) and the
 * largest shift of leaving out any other fact. A fact moving the answer about as far
 * as another does is not the single fact it rests on.
 */
export function noiseOf(checks: readonly StressCheck[], factIndex: number): number {
  let noise = 0;
  for (const check of checks) {
    if (check.kind === 'without-fact' && check.factIndex === factIndex) continue;
    noise = Math.max(noise, check.shift);
  }
  return noise;
}

/** What the pivot is called wherever it is shown: the fact the answer hangs on. */
export const PIVOT_NAME = 'Decisive fact';

/** How sure a word is: the CLI's colours and the page's badges. */
export type Tone = 'good' | 'doubt' | 'bad';

/** The signal as a person reads it (the wire's `needs-context` without its hyphen). */
export const SIGNAL_NAMES: Record<Signal, string> = {
  directional: 'directional',
  yes: 'yes',
  no: 'no',
  unclear: 'unclear',
  'needs-context': 'needs context',
};

/**
 * Context sufficiency in words, from the top: the first level the value reaches.
 * 0.5 is the service's own line: under it the signal is `needs-context`
 * (decision/outcome.ts). 0.8 marks a context the probe is confident in.
 */
export const SUFFICIENCY_LEVELS: ReadonlyArray<{ from: number; words: string; tone: Tone }> = [
  { from: 0.8, words: 'sufficient', tone: 'good' },
  { from: 0.5, words: 'partly sufficient', tone: 'doubt' },
  { from: 0, words: 'insufficient, more facts are needed', tone: 'bad' },
];

/** The three overall verdicts on a stress answer (see verdictOf for the rule). */
export type Verdict = 'stable' | 'fragile' | 'needs-facts';
/** A verdict, why, and both as one line: "fragile: one fact decides it (without fact 2 the answer changes)". */
export interface VerdictFound {
  verdict: Verdict;
  reason: string;
  words: string;
}
export const VERDICTS: Record<Verdict, { words: string; tone: Tone }> = {
  stable: { words: 'stable', tone: 'good' },
  fragile: { words: 'fragile: one fact decides it', tone: 'bad' },
  'needs-facts': { words: 'needs more facts', tone: 'doubt' },
};

/**
 * An engine's failure in plain words. Every one of them fails the whole decision
 * before anything is charged (the service charges only an answer it returns).
 */
export const ENGINE_FAILURES: Record<'engine_busy' | 'engine_timeout' | 'engine_unavailable' | 'engine_bad_response', string> = {
  engine_busy: 'The model is busy with other decisions. Nothing was charged; try again',
  engine_timeout: 'The model did not answer in time. Nothing was charged; try again',
  engine_unavailable: 'The model cannot be reached just now. Nothing was charged; try again',
  engine_bad_response: 'The model gave an answer that could not be read. Nothing was charged; try again',
};

/** What a decision in progress is doing, by depth: the stress test asks the model once more per fact. */
export const PROGRESS: Record<'standard' | 'stress', string> = {
  standard: 'asking the model',
  stress: 'asking the model once with every fact and the options reversed, then once without each fact',
};

/** One value, to a whole per cent, half up on the API's 4-decimal steps: 0.145 → "15%". */
export function wholePercent(p: number): string {
  return `${Math.floor((Math.round(p * 10_000) + 50) / 100)}%`;
}

/** The answer a choice or score result points to: the selected option, or the likeliest level (ties: the first). */
export function leadingAnswer(result: DecisionResult): string {
  if ('selected' in result) return result.selected;
  if ('yesProbability' in result) return result.yesProbability >= 0.5 ? 'Yes' : 'No';
  return result.likeliest;
}

/**
 * What a result's `confidence` is, said wherever it is shown: its top answer's margin
 * over an even split, (k·pmax − 1)/(k − 1) for k answers. It is not a probability, so
 * it is never shown as a percentage; the top answer's probability is shown beside it.
 */
export const CONFIDENCE_SCALE = '0 = evenly split, 1 = certain';

/** "0.08": a confidence on its own scale from 0 to 1, to two decimals; never a percentage. */
export function confidenceValue(confidence: number): string {
  return confidence.toFixed(2);
}

/** "confidence 0.08: 0 = evenly split, 1 = certain": a result's confidence as what it is. */
export function confidenceWords(confidence: number): string {
  return `confidence ${confidenceValue(confidence)}: ${CONFIDENCE_SCALE}`;
}

/** One probability to a tenth of a per cent, half up on the API's 4-decimal steps: 0.6905 → "69.1%" (as the CLI's bars). */
export function tenthPercent(p: number): string {
  const tenths = Math.floor((Math.round(p * 10_000) + 5) / 10);
  return `${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/** Whether an answer rests on too little of the model's probability to lead (the low-mass rule). */
export function restsOnLittle(labelMass: number | null | undefined): labelMass is number {
  return typeof labelMass === 'number' && labelMass < LOW_LABEL_MASS;
}

/** "0.71 of its probability on the answers": an answer's labelMass as what it is. */
export function labelMassWords(labelMass: number): string {
  return `${labelMass.toFixed(2)} of its probability on the answers`;
}

/** "the model put only 3% of its probability on the answers": why a low-mass answer is unclear, as the verdict says it. */
export function lowMassReason(labelMass: number): string {
  return `the model put only ${wholePercent(labelMass)} of its probability on the answers`;
}

/** The reason in full, as the signal line says it. */
export function lowMassWords(labelMass: number): string {
  return `${lowMassReason(labelMass)} (the rest on other words), so the figures above are not its answer`;
}

/** What the signal means for this answer, after its name: "needs context: the facts given …". */
export function signalMeaning(signal: Signal, result: DecisionResult, labelMass?: number | null): string {
  if (signal === 'directional') return `"${leadingAnswer(result)}" leads the next answer by 15 points or more`;
  if (signal === 'yes') return 'the probability of yes is 60% or more';
  if (signal === 'no') return 'the probability of yes is 40% or less';
  if (signal === 'unclear') {
    if (restsOnLittle(labelMass)) return lowMassWords(labelMass);
    return 'yesProbability' in result ? 'the probability of yes lies between 40% and 60%' : 'no answer leads by 15 points or more';
  }
  return 'the facts given are not enough to decide; add facts and ask again';
}

/** "directional: "PostgreSQL" leads …": the signal's name and its meaning. */
export function signalWords(signal: Signal, result: DecisionResult, labelMass?: number | null): string {
  return `${SIGNAL_NAMES[signal]}: ${signalMeaning(signal, result, labelMass)}`;
}

export function sufficiencyLevel(sufficiency: number): { from: number; words: string; tone: Tone } {
  return SUFFICIENCY_LEVELS.find((level) => sufficiency >= level.from) ?? SUFFICIENCY_LEVELS[SUFFICIENCY_LEVELS.length - 1];
}

/** "partly sufficient (77%)": context sufficiency in words, with its value. */
export function sufficiencyWords(sufficiency: number): string {
  return `${sufficiencyLevel(sufficiency).words} (${wholePercent(sufficiency)})`;
}

/** A check of a stress test by what it changed: "order reversed", "without fact 2" (facts numbered from 1 for people). */
export function checkLabel(check: StressCheck): string {
  return check.kind === 'reversed' ? 'order reversed' : `without fact ${check.factIndex + 1}`;
}

/** "Stress test: 2 of 5 checks agree with the answer (agreement 40%)". */
export function stressHeadline(stress: Pick<Stress, 'checks' | 'agreement'>): string {
  const agreeing = stress.checks.filter((check) => check.agrees).length;
  return `Stress test: ${agreeing} of ${stress.checks.length} checks agree with the answer (agreement ${wholePercent(stress.agreement)})`;
}

/**
 * The overall verdict on a stress answer, from its signal and its checks; null at
 * standard depth, which has no checks to judge by. In this order, since each names
 * what to do first:
 * - needs more facts: the signal is `needs-context` (context sufficiency under 0.5)
 *   or `unclear` (no answer leads), or the answer changes when only the order of the
 *   options is reversed. In each case the facts given do not carry the answer, and
 *   more of them is the remedy; an answer the order decides is the model's guess.
 * - fragile, one fact decides it: leaving out one fact changes the answer. It rests
 *   on that fact: check it before acting.
 * - stable: every check agrees with an answer that leads on a context at least
 *   partly sufficient.
 * The agreement share is not used on its own: 4 of 5 agreeing is fragile when the
 * fifth is a fact, and a pivot that only shifts the answer leaves it standing.
 */
export function verdictOf(answer: {
  signal: Signal;
  labelMass?: number | null;
  stress?: Pick<Stress, 'checks' | 'pivot'> | null;
}): VerdictFound | null {
  if (!answer.stress) return null;
  const found = (verdict: Verdict, reason: string): VerdictFound => ({ verdict, reason, words: `${VERDICTS[verdict].words} (${reason})` });
  const { checks, pivot } = answer.stress;
  if (answer.signal === 'needs-context') return found('needs-facts', 'the context sufficiency is under 50%');
  if (answer.signal === 'unclear') {
    if (restsOnLittle(answer.labelMass)) return found('needs-facts', lowMassReason(answer.labelMass));
    return found('needs-facts', 'no answer leads clearly');
  }
  if (checks.some((check) => check.kind === 'reversed' && !check.agrees)) {
    return found('needs-facts', 'the answer changes when the options are given in reverse order');
  }
  if (pivot?.flips) return found('fragile', `without fact ${pivot.factIndex + 1} the answer changes`);
  if (checks.some((check) => !check.agrees)) return found('stable', "no single fact changes it beyond the engine's own noise");
  return found('stable', 'every check agrees with the answer');
}

/**
 * Why a stress test names no pivot (decision/stress.ts `pivotOf`): leaving a fact out
 * moved the answer not PIVOT_NOISE_RATIO times further than the engine's own noise,
 * or by under PIVOT_MIN_SHIFT without changing an answer that led clearly. The reason
 * is said only when the checks show it.
 */
export function noPivotWords(checks: readonly StressCheck[]): string {
  const withoutFact = checks.filter((check) => check.kind === 'without-fact');
  if (withoutFact.length === 0) return 'No single fact decides it: the context holds a single fact.';
  if (withoutFact.every((check) => check.agrees && check.shift < PIVOT_MIN_SHIFT)) {
    return `No single fact decides it: leaving one out never flips the answer or moves it ${wholePercent(PIVOT_MIN_SHIFT)} or more.`;
  }
  if (withoutFact.every((check) => check.shift <= PIVOT_NOISE_RATIO * noiseOf(checks, check.factIndex))) {
    return `No single fact decides it: leaving one out moves the answer less than ${PIVOT_NOISE_RATIO} times as far as reversing the order or leaving out another fact does.`;
  }
  if (withoutFact.every((check) => check.shift < PIVOT_MIN_SHIFT)) {
    return `No single fact decides it: the answer leads too narrowly for a change of under ${wholePercent(PIVOT_MIN_SHIFT)} to count.`;
  }
  return 'No single fact decides it.';
}

/** What leaving the pivot out does, after its name: "Without it the answer shifts by 41.0% and flips: the decision rests on this fact." */
export function pivotWords(pivot: NonNullable<Stress['pivot']>, shift: string): string {
  return `Without it the answer shifts by ${shift}${pivot.flips ? ' and flips: the decision rests on this fact.' : ' but does not flip.'}`;
}

/** "45 s", "12 min", "5 h 3 min": a wait (a Retry-After) as a person reads it. */
export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * "The model is busy with other decisions. Nothing was charged; try again in 5 s.",
 * with the service's Retry-After when it gave one; undefined for any other code.
 */
export function engineFailureWords(code: string, retryAfter?: number): string | undefined {
  const words = (ENGINE_FAILURES as Record<string, string | undefined>)[code];
  if (words === undefined) return undefined;
  return retryAfter === undefined || retryAfter <= 0 ? `${words}.` : `${words} in ${duration(retryAfter)}.`;
}

/** "Deciding… 4 s": the time a decision has taken so far, in whole seconds. */
export function decidingFor(seconds: number): string {
  return `Deciding… ${Math.max(0, Math.floor(seconds))} s`;
}
