import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChoiceQuestion, Engine, NoulQuestion } from '../../src/engine/engine.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { choiceAnswer, defaultAnswer, noulAnswer, scoreAnswer, startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { describeHttpFailures } from './failure-suite.js';
import { failureOf, fund, noDeadline, risk, STATE } from './helpers.js';
import { scaled } from '../support/time.js';
import { systemOnePromptTokens } from '../support/tokens.js';

const KEY = 'ts-test-key-7d2a-SECRET';
const holds: NoulQuestion = { type: 'noul', instructions: 'Do the facts settle it?', criteria: { false: 'no', true: 'yes' } };
const questions = { main: fund, probe: holds, risk };

let fake: SystemOneFake;
let engine: Engine;
beforeEach(async () => {
  fake = await startSystemOneFake();
  engine = createSystemOneEngine({ baseUrl: fake.url, apiKey: KEY, model: 'jev-test', timeoutMs: scaled(5_000) });
});
afterEach(async () => {
  await engine.close?.();
  await fake.close();
});

describe('systemone engine: answers', () => {
  it('asks every question of the state in one call, in the wire format', async () => {
    await engine.ask(STATE, questions, noDeadline());
    expect(fake.requests).toHaveLength(1);
    const { body, headers, path } = fake.requests[0];
    expect(path).toBe('/v1/systemone');
    expect(body).toEqual({
      model: 'jev-test',
      state: STATE,
      questions: {
        main: { type: 'choice', instructions: fund.instructions, criteria: { approve: 'the plan is funded', reject: null } },
        probe: { type: 'noul', instructions: holds.instructions, criteria: { false: 'no', true: 'yes' } },
        risk: { type: 'score', instructions: risk.instructions, criteria: ['low', 'medium', 'high'] },
      },
    });
    // Presentation order travels as key order.
    expect(Object.keys(body.questions.probe.criteria)).toEqual(['false', 'true']);
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('reads noul, choice and score answers and renormalises the distributions', async () => {
    fake.respond(() => ({
      answers: {
        main: choiceAnswer({ approve: 0.3, reject: 0.5 }),
        probe: noulAnswer(0.73),
        risk: scoreAnswer([0.2, 0.2, 0.4], risk.criteria),
      },
      usage: 321,
    }));
    const reply = await engine.ask(STATE, questions, noDeadline());
    expect(reply.answers.probe).toEqual({ type: 'noul', yes: 0.73 });
    expect(reply.answers.main.type).toBe('choice');
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.375, 12);
    expect(reply.answers.main.probabilities.reject).toBeCloseTo(0.625, 12);
    expect(Object.keys(reply.answers.main.probabilities)).toEqual(['approve', 'reject']);
    expect(reply.answers.risk.probabilities).toHaveLength(3);
    reply.answers.risk.probabilities.forEach((p, i) => expect(p).toBeCloseTo([0.25, 0.25, 0.5][i], 12));
    expect(reply.inputTokens).toBe(321);
  });

  it('keys choice probabilities in criteria order whatever order the server used', async () => {
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    fake.respond(() => ({
      answers: { reversed: { type: 'choice', choice: 'approve', confidence: 0.9, probabilities: { approve: 0.9, reject: 0.1 } } },
    }));
    const reply = await engine.ask(STATE, { reversed }, noDeadline());
    expect(Object.keys(reply.answers.reversed.probabilities)).toEqual(['reject', 'approve']);
    expect(reply.answers.reversed.probabilities.approve).toBeCloseTo(0.9, 12);
  });

  it('reproduces the fake default answers, deterministically', async () => {
    const first = await engine.ask(STATE, questions, noDeadline());
    const second = await engine.ask(STATE, questions, noDeadline());
    expect(second).toEqual(first);
    const wire = fake.requests[0].body;
    const expected = defaultAnswer(STATE, 'probe', wire.questions.probe) as { noul: number };
    expect(first.answers.probe).toEqual({ type: 'noul', yes: expected.noul });
    const main = defaultAnswer(STATE, 'main', wire.questions.main) as { probabilities: Record<string, number> };
    expect(first.answers.main.probabilities.approve).toBeCloseTo(main.probabilities.approve, 12);
    const sum = first.answers.risk.probabilities.reduce((s, p) => s + p, 0);
    expect(sum).toBeCloseTo(1, 12);
    expect(first.inputTokens).toBe(Math.ceil(JSON.stringify([STATE, wire.questions]).length / 4));
  });

  it('takes per-question scripted answers and defaults the rest', async () => {
    fake.respond(() => ({ answer: (id) => (id === 'probe' ? noulAnswer(0.8) : undefined) }));
    const reply = await engine.ask(STATE, questions, noDeadline());
    expect(reply.answers.probe).toEqual({ type: 'noul', yes: 0.8 });
    expect(reply.answers.main.type).toBe('choice');
  });

  it('counts the state and question texts it sent when usage is absent or malformed', async () => {
    for (const usage of [null, { output_tokens: 3 }, { input_tokens: 'many' }]) {
      fake.requests.length = 0;
      fake.respond(() => ({ usage }));
      const reply = await engine.ask(STATE, questions, noDeadline());
      const counted = systemOnePromptTokens(fake.requests[0].body);
      expect(counted).toBeGreaterThan(0);
      expect(reply.inputTokens, JSON.stringify(usage)).toBe(counted);
    }
  });

  it('sends no Authorization header without a key', async () => {
    const keyless = createSystemOneEngine({ baseUrl: fake.url, model: 'jev-test' });
    await keyless.ask(STATE, questions, noDeadline());
    await keyless.close?.();
    expect(fake.requests[0].headers).not.toHaveProperty('authorization');
  });
});

describe('systemone engine: unusable answers', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a question missing from answers', { missing: ['risk'] }, '"risk" unanswered'],
    ['a wrong answer type', { answer: (id: string) => (id === 'probe' ? choiceAnswer({ yes: 1 }) : undefined) }, 'as choice'],
    ['a noul probability above 1', { answer: (id: string) => (id === 'probe' ? noulAnswer(1.2) : undefined) }, '"probe"'],
    [
      'a negative probability',
      { answer: (id: string) => (id === 'main' ? choiceAnswer({ approve: 1.1, reject: -0.1 }) : undefined) },
      '"main"',
    ],
    [
      'a probability that is a string',
      { answer: (id: string) => (id === 'main' ? { type: 'choice', probabilities: { approve: '0.5', reject: 0.5 } } : undefined) },
      '"main"',
    ],
    ['a label left out', { answer: (id: string) => (id === 'main' ? choiceAnswer({ approve: 1 }) : undefined) }, '"reject"'],
    [
      'a label not offered',
      { answer: (id: string) => (id === 'main' ? choiceAnswer({ approve: 0.5, reject: 0.3, defer: 0.2 }) : undefined) },
      '"defer"',
    ],
    ['a score level left out', { answer: (id: string) => (id === 'risk' ? scoreAnswer([0.5, 0.5]) : undefined) }, '"2"'],
    ['no mass at all', { answer: (id: string) => (id === 'risk' ? scoreAnswer([0, 0, 0]) : undefined) }, 'no usable mass'],
    ['answers that are not an object', { answers: 'yes' as unknown as Record<string, unknown> }, 'not a systemone reply'],
  ];
  for (const [what, behaviour, mention] of cases) {
    it(`rejects ${what} as bad_response`, async () => {
      fake.respond(() => behaviour);
      const err = await failureOf(engine.ask(STATE, questions, noDeadline()));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toContain(mention);
    });
  }

  it('rejects an infinite probability (1e999 on the wire)', async () => {
    const body = '{"answers":{"main":{"type":"choice","probabilities":{"approve":1e999,"reject":0.5}}}}';
    fake.respond(() => ({ status: 200, body }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
  });

  it('rejects a reply with no body', async () => {
    fake.respond(() => ({ status: 200, body: '' }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
  });
});

describeHttpFailures('systemone', {
  start: () => startSystemOneFake(),
  create: (options) => createSystemOneEngine({ ...options, model: 'jev-test' }),
  withPort: (_url, port) => `http://127.0.0.1:${port}`,
  questions,
});
