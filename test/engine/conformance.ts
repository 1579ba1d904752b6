import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChoiceQuestion, Engine, NoulQuestion, ScoreQuestion } from '../../src/engine/engine.js';
import { failureOf } from './helpers.js';

/**
 * What every engine must do, whatever it answers: the table below holds for any valid
 * distribution, so it runs as well against a fake as against a real model on random
 * weights. Checks of exact probabilities belong in each engine's own tests, where the
 * fake can be scripted.
 */

export interface ConformanceSubject {
  engine: Engine;
  close(): Promise<void>;
  /**
   * The option labels of each choice question the engine has sent so far, in the order
   * it presented them, with the question's instructions. Leave it out when what the
   * engine sends cannot be seen (a model in-process).
   */
  presentedChoices?(): Array<{ instructions: string; labels: string[] }>;
  /** Makes every call from now on slow (a fake hangs), so that an abort lands mid-call. */
  slowDown?(): void;
  /** How many calls reached the provider so far; leave it out when that cannot be seen. */
  calls?(): number;
}

export interface ConformanceOptions {
  /** Called once for the suite; the subject is shared by its tests and closed after them. */
  start(): Promise<ConformanceSubject>;
  /** How long after the call to abort it in the mid-call test. Default 50 ms. */
  abortAfterMs?: number;
  /** Skip the whole table when the engine cannot run here… */
  skip?: boolean;
  /** …and what it needs, said in the table's title. */
  needs?: string;
}

const STATE = 'The service handles 40 requests a second.\nThe team knows SQL well.\nA backup runs nightly.';
const SUM_TOLERANCE = 1e-9;

const holds: NoulQuestion = { type: 'noul', instructions: 'Do the facts say the team can run the service?' };
const noFirst: NoulQuestion = { type: 'noul', instructions: 'Is the backup enough?', criteria: { false: 'it is not', true: 'it is' } };
const year: ChoiceQuestion = {
  type: 'choice',
  instructions: 'Which release year fits the facts best?',
  // Integer-like labels: an object would reorder them ("1999" before "2025").
  criteria: [
    { label: '2025', description: 'the current release' },
    { label: '1999', description: null },
    { label: 'later', description: 'wait for the next one' },
  ],
};
const yearReversed: ChoiceQuestion = {
  ...year,
  instructions: 'Which release year fits the facts best? (reversed)',
  criteria: [...year.criteria].reverse(),
};
const risk: ScoreQuestion = { type: 'score', instructions: 'How risky is the change?', criteria: ['low', 'medium', 'high'] };
/** The format's largest questions: 255 options (integer-like names among them) and 10 levels. */
const queue: ChoiceQuestion = {
  type: 'choice',
  instructions: 'Which queue should the change go through?',
  criteria: Array.from({ length: 255 }, (_, i) => ({
    label: i % 50 === 7 ? String(2000 - i) : `queue ${i + 1}`,
    description: i === 0 ? 'the default' : null,
  })),
};
const urgency: ScoreQuestion = {
  type: 'score',
  instructions: 'How urgent is the change?',
  criteria: Array.from({ length: 10 }, (_, i) => `urgency ${i}`),
};

function expectDistribution(values: number[]): void {
  for (const p of values) {
    expect(Number.isFinite(p)).toBe(true);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
  }
  expect(Math.abs(values.reduce((sum, p) => sum + p, 0) - 1)).toBeLessThan(SUM_TOLERANCE);
}

function expectChoice(answer: unknown, question: ChoiceQuestion): void {
  expect(answer).toMatchObject({ type: 'choice' });
  const { probabilities } = answer as { probabilities: Record<string, number> };
  // Key order is not checked: JavaScript lists integer-like keys first whatever the engine did.
  expect(Object.keys(probabilities).sort()).toEqual(question.criteria.map((o) => o.label).sort());
  expectDistribution(Object.values(probabilities));
}

function expectScore(answer: unknown, question: ScoreQuestion): void {
  expect(answer).toMatchObject({ type: 'score' });
  const { probabilities } = answer as { probabilities: number[] };
  expect(Array.isArray(probabilities)).toBe(true);
  expect(probabilities).toHaveLength(question.criteria.length);
  expectDistribution(probabilities);
}

function expectNoul(answer: unknown): void {
  expect(answer).toMatchObject({ type: 'noul' });
  const { yes } = answer as { yes: number };
  expectDistribution([yes, 1 - yes]);
}

/** Every engine counts what it asked: the server's count, or its own when the server gives none. */
function expectTokens(inputTokens: unknown): void {
  expect(Number.isInteger(inputTokens), `inputTokens ${inputTokens}`).toBe(true);
  expect(inputTokens as number).toBeGreaterThan(0);
}

export function describeEngineConformance(name: string, options: ConformanceOptions): void {
  describe.skipIf(options.skip ?? false)(`${name} engine: conformance${options.needs ? ` ${options.needs}` : ''}`, () => {
    let subject: ConformanceSubject;
    const ask = <Q extends Parameters<Engine['ask']>[1]>(questions: Q, signal = new AbortController().signal) =>
      subject.engine.ask(STATE, questions, signal);
    const presented = (instructions: string) =>
      subject
        .presentedChoices?.()
        .filter((c) => c.instructions === instructions)
        .at(-1)?.labels;

    beforeAll(async () => {
      subject = await options.start();
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('answers a noul question with P(yes) in [0, 1]', async () => {
      const reply = await ask({ holds });
      expect(Object.keys(reply.answers)).toEqual(['holds']);
      expectNoul(reply.answers.holds);
      expectTokens(reply.inputTokens);
    });

    it('answers a choice keyed by its labels, integer-like ones presented in the given order', async () => {
      const reply = await ask({ year });
      expectChoice(reply.answers.year, year);
      if (subject.presentedChoices) expect(presented(year.instructions)).toEqual(['2025', '1999', 'later']);
    });

    it('answers a score question indexed like its levels', async () => {
      const reply = await ask({ risk });
      expectScore(reply.answers.risk, risk);
    });

    it('answers several questions of one state in one ask', async () => {
      const reply = await ask({ holds, noFirst, year, risk });
      expect(Object.keys(reply.answers).sort()).toEqual(['holds', 'noFirst', 'risk', 'year']);
      expectNoul(reply.answers.holds);
      expectNoul(reply.answers.noFirst);
      expectChoice(reply.answers.year, year);
      expectScore(reply.answers.risk, risk);
      expectTokens(reply.inputTokens);
    });

    it('respects a reversed presentation order', async () => {
      const reply = await ask({ year, yearReversed });
      expectChoice(reply.answers.year, year);
      expectChoice(reply.answers.yearReversed, yearReversed);
      if (subject.presentedChoices) {
        expect(presented(year.instructions)).toEqual(['2025', '1999', 'later']);
        expect(presented(yearReversed.instructions)).toEqual(['later', '1999', '2025']);
      }
    });

    it("answers the format's largest questions: a choice of 255 options and a score of 10 levels", async () => {
      const reply = await ask({ queue, urgency });
      expectChoice(reply.answers.queue, queue);
      expectScore(reply.answers.urgency, urgency);
      const shown = presented(queue.instructions);
      if (shown) expect(shown).toEqual(queue.criteria.map((o) => o.label));
    });

    it('reports inputTokens, a count of at least one token', async () => {
      const reply = await ask({ risk });
      expectTokens(reply.inputTokens);
    });

    it('fails with timeout at once on an already aborted signal', async () => {
      const before = subject.calls?.();
      const err = await failureOf(ask({ holds, year }, AbortSignal.abort()));
      expect(err.kind).toBe('timeout');
      // At once: without asking the provider anything.
      if (before !== undefined) expect(subject.calls!()).toBe(before);
    });

    // Last: slowDown() is not undone, and the subject is shared.
    it('fails with timeout soon after an abort in the middle of the call', async () => {
      subject.slowDown?.();
      const controller = new AbortController();
      const abortAfterMs = options.abortAfterMs ?? 50;
      setTimeout(() => controller.abort(), abortAfterMs);
      const err = await failureOf(ask({ holds, year, risk }, controller.signal));
      expect(err.kind).toBe('timeout');
      // Soon after the abort: the caller's deadline ended the call, not the engine's
      // own timeout (which says "did not answer within … ms").
      expect(err.message).toMatch(/decision'?s? deadline/);
    });
  });
}
