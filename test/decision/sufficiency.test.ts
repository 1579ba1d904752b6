import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../src/contract/index.js';
import { runDecision } from '../../src/decision/run.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { choiceAnswer, noulAnswer, startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { scaled } from '../support/time.js';

/**
 * Stress depth reports the sufficiency probe's own value, as standard depth does:
 * whichever way the checks move the answer, they do not enter it (docs/eval.md,
 * "Sufficiency at stress depth", says why).
 */
describe("a stress decision's sufficiency is the probe's, and signals by it", () => {
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

  it('an answer that rests on one fact leaves a doubtful probe as it was, at both depths', async () => {
    // The probe doubts (0.45), but without the cache fact the answer falls from 0.9 to 0.5.
    fake.respond((body) => ({
      answer: (id) => (id.startsWith('sufficiency') ? noulAnswer(0.45) : noulAnswer(body.state.includes('cache was disabled') ? 0.9 : 0.5)),
    }));
    const outcome = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(outcome.stress!.pivot).toMatchObject({ factIndex: 1, shift: 0.4 });
    expect(outcome.contextSufficiency).toBe(0.45);
    expect(outcome.signal).toBe('needs-context');

    const standard = await runDecision({ ...noul, depth: 'standard' }, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(standard.contextSufficiency).toBe(0.45);
    expect(standard.signal).toBe('needs-context');
  });

  it('an answer that moves whichever fact is cut leaves a confident probe as it was', async () => {
    // The probe is sure (0.9), and each cut context gets a guess of its own: the answer
    // follows whatever text it is shown. The old rule read this as a context twice as
    // sure (0.99); the probe's value stands.
    const guesses = [0.95, 0.1, 0.85, 0.2];
    fake.respond((body) => ({
      answer: (id) => {
        if (id.startsWith('sufficiency')) return noulAnswer(0.9);
        const cut = ['forty minutes', 'cache was disabled', 'Nobody has looked'].findIndex((text) => !body.state.includes(text));
        return noulAnswer(guesses[cut + 1]);
      },
    }));
    const outcome = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    const shifts = outcome.stress!.checks.filter((check) => check.kind === 'without-fact').map((check) => check.shift);
    expect(shifts.every((shift) => shift >= 0.1)).toBe(true);
    expect(outcome.contextSufficiency).toBe(0.9);
    expect(outcome.signal).toBe('yes');
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
