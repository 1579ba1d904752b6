import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecisionRequest, type Stress } from '../../src/contract/index.js';
import { runDecision } from '../../src/decision/run.js';
import { groundedSufficiency } from '../../src/decision/sufficiency.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { choiceAnswer, noulAnswer, startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { scaled } from '../support/time.js';

/** A stress section with the given reversed shift and without-fact shifts (the rest does not enter). */
function stressWith(reversed: number, withoutFacts: number[]): Stress {
  const result = { yesProbability: 0.5 };
  return {
    agreement: 1,
    pivot: null,
    checks: [
      { kind: 'reversed', agrees: true, shift: reversed, result },
      ...withoutFacts.map((shift, factIndex) => ({
        kind: 'without-fact' as const,
        factIndex,
        fact: `Fact ${factIndex}.`,
        agrees: true,
        shift,
        result,
      })),
    ],
  };
}

describe('context sufficiency weighed with the stress checks', () => {
  it('checks that moved nothing leave the self-assessment as it was', () => {
    expect(groundedSufficiency(0.62, stressWith(0, [0, 0, 0]))).toBe(0.62);
    expect(groundedSufficiency(0.3, stressWith(0, []))).toBe(0.3);
  });

  it('a fact whose removal moves the answer raises it; the order of the options does not enter', () => {
    // A shift of 0.5 is worth odds of 3 : 1.
    expect(groundedSufficiency(0.5, stressWith(0, [0.1, 0.5, 0.2]))).toBe(0.75);
    expect(groundedSufficiency(0.25, stressWith(0, [0.5]))).toBe(0.5);
    // The largest without-fact shift counts, not their number.
    expect(groundedSufficiency(0.5, stressWith(0, [0.5, 0.5, 0.5]))).toBe(0.75);
    expect(groundedSufficiency(0.5, stressWith(0.8, [0, 0]))).toBe(0.5);
  });

  it('no check makes it certain', () => {
    expect(groundedSufficiency(0.5, stressWith(0, [1]))).toBe(0.99);
    expect(groundedSufficiency(0.01, stressWith(0, [1]))).toBe(0.5);
  });
});

describe('a stress decision reports the weighed sufficiency and signals by it', () => {
  let fake: SystemOneFake;
  const engine = () => createSystemOneEngine({ baseUrl: fake.url, model: 'm', timeoutMs: scaled(5_000) });
  const context = 'The build takes forty minutes. The cache was disabled last week. Nobody has looked at it since.';
  const noul = DecisionRequest.parse({ mode: 'noul', question: 'Should we re-enable the build cache?', context, depth: 'stress' });
  const choice = DecisionRequest.parse({
    ...noul,
    mode: 'choice',
    question: 'What should we fix first?',
    options: ['the cache', 'the tests'],
  });

  beforeAll(async () => {
    fake = await startSystemOneFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.respond());

  it('an answer that rests on one fact turns a doubtful self-assessment into enough context', async () => {
    // The probe doubts (0.45), but without the cache fact the answer falls from 0.9 to 0.5.
    fake.respond((body) => ({
      answer: (id) => (id.startsWith('sufficiency') ? noulAnswer(0.45) : noulAnswer(body.state.includes('cache was disabled') ? 0.9 : 0.5)),
    }));
    const outcome = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(outcome.stress!.pivot).toMatchObject({ factIndex: 1, shift: 0.4 });
    // logit(0.45) + logit(0.7) → 0.656
    expect(outcome.contextSufficiency).toBe(0.6562);
    expect(outcome.signal).toBe('yes');

    const standard = await runDecision({ ...noul, depth: 'standard' }, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(standard.contextSufficiency).toBe(0.45);
    expect(standard.signal).toBe('needs-context');
  });

  it('an answer that no single fact moves keeps the self-assessment, whatever the order did', async () => {
    // The probe is unsure (0.45); the first option shown gets 0.8 whatever the facts say.
    fake.respond(() => ({
      answer: (id, question) => {
        if (id.startsWith('sufficiency')) return noulAnswer(0.45);
        const [first, second] = Object.keys(question.criteria);
        return choiceAnswer({ [first]: 0.8, [second]: 0.2 });
      },
    }));
    const outcome = await runDecision(choice, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(outcome.stress!.checks[0]).toMatchObject({ kind: 'reversed', agrees: false, shift: 0.6 });
    expect(outcome.stress!.pivot).toBeNull();
    expect(outcome.contextSufficiency).toBe(0.45);
    expect(outcome.signal).toBe('needs-context');
  });
});
