import type { Stress, StressCheck } from '../contract/answer.js';
import { noiseOf, PIVOT_MIN_SHIFT, PIVOT_NOISE_RATIO } from '../contract/wording.js';
import type { Fact } from './facts.js';
import { leadsClearly, round4, totalVariation, type Weighed } from './outcome.js';

/**
 * The stress section from the base answer and the checks' answers (docs/api.md,
 * "Decisions"). Checks compare what is reported: the rounded distributions and the
 * top answers as the caller sees them.
 *
 * `agrees` compares top answers: the top label for choice and score (ties: the first
 * in request order), the side of 0.5 for noul. Exactly 0.5 is a side of its own
 * ("even"): it has no top answer, so it agrees only with another 0.5.
 */
export function stressOf(base: Weighed, reversed: Weighed, withoutFacts: ReadonlyArray<{ fact: Fact; weighed: Weighed }>): Stress {
  const checks: StressCheck[] = [
    { kind: 'reversed', ...compare(base, reversed), result: reversed.result },
    ...withoutFacts.map(
      ({ fact, weighed }, factIndex): StressCheck => ({
        kind: 'without-fact',
        factIndex,
        fact: fact.text,
        ...compare(base, weighed),
        result: weighed.result,
      }),
    ),
  ];
  const agreeing = checks.filter((check) => check.agrees).length;
  return { agreement: round4(agreeing / checks.length), checks, pivot: pivotOf(checks, leadsClearly(base)) };
}

export function compare(base: Weighed, check: Weighed): { agrees: boolean; shift: number } {
  return { agrees: base.top === check.top, shift: totalVariation(base, check) };
}

/**
 * The without-fact check that decides the answer, or null: no single fact does. A
 * check decides when leaving its fact out moves the answer PIVOT_NOISE_RATIO times
 * further than the engine's own noise on this very question (`noiseOf`), and either
 * changes an answer that led clearly (`clear`) or moves it by at least
 * PIVOT_MIN_SHIFT. Of those, the largest shift (ties: the lowest factIndex). A
 * near-tie tipped by a few hundredths, or one fact moving it about as far as another,
 * names none: on small models any change of the prompt does that.
 */
export function pivotOf(checks: readonly StressCheck[], clear: boolean): Stress['pivot'] {
  let pivot: Stress['pivot'] = null;
  for (const check of checks) {
    if (check.kind !== 'without-fact' || check.shift <= PIVOT_NOISE_RATIO * noiseOf(checks, check.factIndex)) continue;
    if (check.shift < PIVOT_MIN_SHIFT && (check.agrees || !clear)) continue;
    if (pivot === null || check.shift > pivot.shift || (check.shift === pivot.shift && check.factIndex < pivot.factIndex)) {
      pivot = { factIndex: check.factIndex, fact: check.fact, shift: check.shift, flips: !check.agrees };
    }
  }
  return pivot;
}
