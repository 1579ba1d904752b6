import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Signal, Stress, StressCheck } from '../../src/contract/index.js';
import * as wording from '../../src/contract/wording.js';
import { wordingScript } from '../../src/web/wording-script.js';

/** The words of an answer, shared by the CLI and the pass page, and the verdict's rule. */

const result = { selected: 'PostgreSQL', confidence: 0.4, probabilities: { PostgreSQL: 0.7, MongoDB: 0.3 } };
const reversed = (agrees: boolean): StressCheck => ({ kind: 'reversed', agrees, shift: agrees ? 0.02 : 0.4, result });
const without = (factIndex: number, agrees: boolean, shift = agrees ? 0.02 : 0.4): StressCheck => ({
  kind: 'without-fact',
  factIndex,
  fact: `Fact ${factIndex + 1}.`,
  agrees,
  shift,
  result,
});
const stress = (...checks: StressCheck[]): Stress => ({
  agreement: checks.filter((c) => c.agrees).length / checks.length,
  checks,
  pivot: null,
});

describe('the verdict on a stress answer', () => {
  const verdict = (signal: Signal, s: Stress | null) => wording.verdictOf({ signal, stress: s })?.words ?? null;

  it('is stable when every check agrees with an answer that leads', () => {
    expect(verdict('directional', stress(reversed(true), without(0, true), without(1, true)))).toBe(
      'stable (every check agrees with the answer)',
    );
    expect(verdict('yes', stress(reversed(true), without(0, true)))).toMatch(/^stable /);
  });

  it('is fragile when the pivot flips the answer, naming that fact', () => {
    // 3 of 4 checks agree: a high agreement, and still one fact decides it.
    const s = stress(reversed(true), without(0, true), without(1, false), without(2, true));
    const pivot = { factIndex: 1, fact: 'Fact 2.', shift: 0.4, flips: true };
    expect(verdict('directional', { ...s, pivot })).toBe('fragile: one fact decides it (without fact 2 the answer changes)');
  });

  it("a flip the service names no pivot for (within the engine's own noise) leaves it stable, saying why", () => {
    expect(verdict('directional', stress({ ...reversed(true), shift: 0.2 }, without(0, false, 0.2)))).toBe(
      "stable (no single fact changes it beyond the engine's own noise)",
    );
  });

  it('a fact that shifts the answer without flipping it leaves it stable', () => {
    expect(verdict('directional', stress(reversed(true), without(0, true, 0.3)))).toMatch(/^stable /);
  });

  it('needs more facts when the context falls short, no answer leads, or the order of the options decides: before fragile', () => {
    const flips = stress(reversed(true), without(0, false));
    expect(verdict('needs-context', flips)).toBe('needs more facts (the context sufficiency is under 50%)');
    expect(verdict('unclear', flips)).toBe('needs more facts (no answer leads clearly)');
    expect(verdict('directional', stress(reversed(false), without(0, false)))).toBe(
      'needs more facts (the answer changes when the options are given in reverse order)',
    );
  });

  it("says why no fact decides it: within the reversed order's shift, or a narrow lead tipped by under 10%", () => {
    expect(wording.noPivotWords([{ ...reversed(true), shift: 0.05 }, without(0, false, 0.04), without(1, true, 0.05)])).toBe(
      'No single fact decides it: leaving one out moves the answer less than 1.5 times as far as reversing the order or leaving out another fact does.',
    );
    expect(wording.noPivotWords([reversed(true), without(0, false, 0.08), without(1, true, 0.01)])).toBe(
      'No single fact decides it: the answer leads too narrowly for a change of under 10% to count.',
    );
  });

  it('is none at standard depth, which has no checks', () => {
    expect(verdict('directional', null)).toBeNull();
  });
});

describe('the shared words', () => {
  it('context sufficiency: sufficient from 80%, partly from 50% (where the signal turns needs-context), else insufficient', () => {
    expect([0.8, 0.7999, 0.5, 0.4999, 0].map(wording.sufficiencyWords)).toEqual([
      'sufficient (80%)',
      'partly sufficient (80%)',
      'partly sufficient (50%)',
      'insufficient, more facts are needed (50%)',
      'insufficient, more facts are needed (0%)',
    ]);
    expect(wording.sufficiencyLevel(0.77).tone).toBe('doubt');
  });

  it('the signal by name, needs-context without its hyphen', () => {
    expect(wording.signalWords('needs-context', result)).toBe(
      'needs context: the facts given are not enough to decide; add facts and ask again',
    );
    expect(
      wording.signalWords('directional', {
        score: 1.2,
        likeliest: 'mid',
        confidence: 0.3,
        probabilities: { low: 0.1, mid: 0.6, high: 0.3 },
      }),
    ).toBe('directional: "mid" leads the next answer by 15 points or more');
  });

  it('a score leads with its likeliest level, which its mean need not be', () => {
    const split = { score: 0.997, likeliest: 'low', confidence: 0.076, probabilities: { low: 0.384, medium: 0.235, high: 0.381 } };
    expect(wording.leadingAnswer(split)).toBe('low');
    expect(wording.signalWords('directional', split)).toBe('directional: "low" leads the next answer by 15 points or more');
  });

  it('confidence as what it is: a number from 0 to 1 with its scale, never a percentage', () => {
    expect(wording.confidenceWords(0.076)).toBe('confidence 0.08: 0 = evenly split, 1 = certain');
    expect(wording.confidenceWords(0.5)).toBe('confidence 0.50: 0 = evenly split, 1 = certain');
    expect(wording.confidenceWords(1)).toBe('confidence 1.00: 0 = evenly split, 1 = certain');
    expect(wording.confidenceValue(0)).toBe('0.00');
    expect(wording.tenthPercent(0.6905)).toBe('69.1%');
    expect(wording.tenthPercent(0.54)).toBe('54.0%');
  });

  it("an engine's failure in plain words, with the wait when the service gave one; other codes have none", () => {
    expect(wording.engineFailureWords('engine_timeout')).toBe('The model did not answer in time. Nothing was charged; try again.');
    expect(wording.engineFailureWords('engine_busy', 5)).toBe(
      'The model is busy with other decisions. Nothing was charged; try again in 5 s.',
    );
    expect(wording.engineFailureWords('engine_unavailable', 0)).toBe(
      'The model cannot be reached just now. Nothing was charged; try again.',
    );
    expect(wording.engineFailureWords('engine_unavailable', 300)).toMatch(/try again in 5 min\.$/);
    expect(wording.engineFailureWords('pass_required')).toBeUndefined();
  });
});

describe("the page's copy of the words", () => {
  it('is the module itself: the script the server sends gives the same words for the same answers', () => {
    const window: { decideWording?: typeof wording } = {};
    vm.runInNewContext(wordingScript(), { window });
    const page = window.decideWording!;
    expect(Object.keys(page).sort()).toEqual(Object.keys(wording).sort());
    const answers = [
      { signal: 'directional' as const, stress: stress(reversed(true), without(0, false)) },
      { signal: 'unclear' as const, stress: stress(reversed(true)) },
      { signal: 'yes' as const, stress: stress(reversed(true), without(0, true)) },
    ];
    for (const answer of answers) {
      expect(page.verdictOf(answer)).toEqual(wording.verdictOf(answer));
      expect(page.noPivotWords(answer.stress.checks)).toBe(wording.noPivotWords(answer.stress.checks));
      expect(page.stressHeadline(answer.stress)).toBe(wording.stressHeadline(answer.stress));
      expect(page.signalWords(answer.signal, result)).toBe(wording.signalWords(answer.signal, result));
    }
    for (const s of [0, 0.49, 0.5, 0.77, 0.8, 1]) expect(page.sufficiencyWords(s)).toBe(wording.sufficiencyWords(s));
    expect(page.engineFailureWords('engine_unavailable', 180)).toBe(wording.engineFailureWords('engine_unavailable', 180));
    expect(page.decidingFor(4.7)).toBe('Deciding… 4 s');
    expect(page.confidenceWords(0.076)).toBe(wording.confidenceWords(0.076));
    // The low-mass rule's words, whose threshold the page reads from the same file.
    expect(page.signalWords('unclear', result, 0.03)).toBe(wording.signalWords('unclear', result, 0.03));
    expect(page.verdictOf({ signal: 'unclear', labelMass: 0.03, stress: stress(reversed(true)) })).toEqual(
      wording.verdictOf({ signal: 'unclear', labelMass: 0.03, stress: stress(reversed(true)) }),
    );
  });
});

describe('an answer that rests on little of the model', () => {
  it('is unclear because of it, said in so many words; at half the mass or more the usual reason stands', () => {
    expect(wording.signalWords('unclear', result, 0.03)).toBe(
      'unclear: the model put only 3% of its probability on the answers (the rest on other words), so the figures above are not its answer',
    );
    expect(wording.verdictOf({ signal: 'unclear', labelMass: 0.03, stress: stress(reversed(true)) })?.words).toBe(
      'needs more facts (the model put only 3% of its probability on the answers)',
    );
    expect(wording.signalWords('unclear', result, 0.5)).toBe('unclear: no answer leads by 15 points or more');
    expect(wording.signalWords('unclear', result, null)).toBe('unclear: no answer leads by 15 points or more');
  });
});
