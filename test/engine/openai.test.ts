import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChoiceQuestion, Engine, NoulQuestion, ScoreQuestion } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { DecisionRequest } from '../../src/contract/decision.js';
import { runDecision } from '../../src/decision/run.js';
import {
  byOptionText,
  defaultLabelProbabilities,
  factsText,
  offeredLabels,
  offeredOptions,
  questionText,
  startOpenAIFake,
  systemText,
  userText,
  type OpenAIFake,
} from '../fakes/openai-fake.js';
import { describeHttpFailures } from './failure-suite.js';
import { failureOf, fund, holds, ln, noDeadline, risk, STATE } from './helpers.js';
import { scaled } from '../support/time.js';
import { o200k, openaiPromptTokens } from '../support/tokens.js';

const KEY = 'sk-test-6f1c0ffee-SECRET';

let fake: OpenAIFake;
let engine: Engine;
beforeEach(async () => {
  fake = await startOpenAIFake();
  engine = createOpenAIEngine({ baseUrl: fake.url, apiKey: KEY, model: 'fake-model', timeoutMs: scaled(5_000) });
});
afterEach(async () => {
  await engine.close?.();
  await fake.close();
});

describe('openai engine: probabilities from logprobs', () => {
  it('sums the mass of folded label tokens and renormalises over the labels', async () => {
    fake.respond(() => ({
      topLogprobs: [
        { token: 'A', logprob: ln(0.6) },
        { token: ' a', logprob: ln(0.1) },
        { token: 'B', logprob: ln(0.2) },
        { token: 'The', logprob: ln(0.1) },
      ],
    }));
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(reply.answers.main.type).toBe('choice');
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.7 / 0.9, 12);
    expect(reply.answers.main.probabilities.reject).toBeCloseTo(0.2 / 0.9, 12);
    expect(Object.keys(reply.answers.main.probabilities)).toEqual(['approve', 'reject']);
  });

  it('sends one single-token logprob request with the facts, the question and lettered options', async () => {
    await engine.ask(STATE, { main: fund }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    const { body, headers, path } = fake.requests[0];
    expect(path).toBe('/v1/chat/completions');
    expect(body).toMatchObject({ model: 'fake-model', max_tokens: 1, temperature: 0, logprobs: true, top_logprobs: 20 });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(userText(body).endsWith('Reply with exactly one label: A or B. Write nothing else.')).toBe(true);
    expect(userText(body)).toContain(STATE);
    expect(questionText(body)).toBe('Which should we do with the plan?');
    expect(offeredOptions(body)).toEqual([
      { label: 'A', text: 'approve — the plan is funded' },
      { label: 'B', text: 'reject' },
    ]);
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(headers['content-type']).toBe('application/json');
  });

  it('folds case and surrounding white space of Yes/No tokens', async () => {
    fake.respond(() => ({
      labels: { Yes: 0.5, ' yes': 0.1, YES: 0.1, '\nNo': 0.2, 'no ': 0.05, Maybe: 0.05 },
    }));
    const reply = await engine.ask(STATE, { probe: holds }, noDeadline());
    // Maybe's 0.05 is the one share the labels did not hold.
    expect(reply.answers.probe).toEqual({ type: 'noul', yes: expect.closeTo(0.7 / 0.95, 12), labelMass: expect.closeTo(0.95, 12) });
    expect(offeredLabels(fake.requests[0].body)).toEqual(['Yes', 'No']);
    expect(userText(fake.requests[0].body)).toContain('Reply with exactly one label: Yes or No.');
  });

  it('maps letters back to criteria labels when the options are presented reversed', async () => {
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    fake.respond(() => ({ labels: { A: 0.8, B: 0.2 } }));
    const reply = await engine.ask(STATE, { reversed }, noDeadline());
    expect(offeredOptions(fake.requests[0].body).map((o) => o.text)).toEqual(['reject', 'approve — the plan is funded']);
    expect(reply.answers.reversed.probabilities).toEqual({ reject: expect.closeTo(0.8, 12), approve: expect.closeTo(0.2, 12) });
    expect(Object.keys(reply.answers.reversed.probabilities)).toEqual(['reject', 'approve']);
  });

  it('presents No before Yes when the criteria put false first, and still reads Yes as yes', async () => {
    const noFirst: NoulQuestion = { ...holds, criteria: { false: 'it does not hold', true: 'it holds' } };
    fake.respond(() => ({ labels: { No: 0.7, Yes: 0.3 } }));
    const reply = await engine.ask(STATE, { noFirst }, noDeadline());
    const body = fake.requests[0].body;
    expect(offeredOptions(body)).toEqual([
      { label: 'No', text: 'it does not hold' },
      { label: 'Yes', text: 'it holds' },
    ]);
    expect(userText(body)).toContain('Reply with exactly one label: No or Yes.');
    expect(reply.answers.noFirst).toEqual({ type: 'noul', yes: expect.closeTo(0.3, 12), labelMass: expect.closeTo(1, 12) });
  });

  it('labels score levels 1, 2, 3 in array order and indexes the answer like the criteria', async () => {
    const highFirst: ScoreQuestion = { ...risk, criteria: ['high', 'medium', 'low'] };
    fake.respond(() => ({ labels: { '1': 0.1, '2': 0.3, '3': 0.5, ' 3': 0.1 } }));
    const reply = await engine.ask(STATE, { highFirst }, noDeadline());
    expect(offeredOptions(fake.requests[0].body)).toEqual([
      { label: '1', text: 'high' },
      { label: '2', text: 'medium' },
      { label: '3', text: 'low' },
    ]);
    const p = reply.answers.highFirst.probabilities;
    expect(p).toHaveLength(3);
    expect(p[0]).toBeCloseTo(0.1, 12);
    expect(p[1]).toBeCloseTo(0.3, 12);
    expect(p[2]).toBeCloseTo(0.6, 12);
  });

  it('gives labels without mass 0 and renormalises the rest', async () => {
    const three: ChoiceQuestion = {
      type: 'choice',
      instructions: 'Pick',
      criteria: ['x', 'y', 'z'].map((label) => ({ label, description: null })),
    };
    fake.respond(() => ({ labels: { A: 0.45, B: 0.3, The: 0.25 } }));
    const reply = await engine.ask(STATE, { three }, noDeadline());
    expect(reply.answers.three.probabilities.x).toBeCloseTo(0.6, 12);
    expect(reply.answers.three.probabilities.y).toBeCloseTo(0.4, 12);
    expect(reply.answers.three.probabilities.z).toBe(0);
  });

  it('says how little of its mass an answer put on the labels, rather than refusing it (the decision says unclear)', async () => {
    fake.respond(() => ({ labels: { The: 0.6, A: 0.3, B: 0.1 } }));
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(reply.answers.main.labelMass).toBeCloseTo(0.4, 12);
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.75, 12);
  });

  it('reproduces the fake default distribution, deterministically', async () => {
    const first = await engine.ask(STATE, { main: fund }, noDeadline());
    const second = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(second.answers).toEqual(first.answers);
    const expected = defaultLabelProbabilities(fake.requests[0].body);
    expect(expected.The).toBeCloseTo(0.1, 12);
    expect(first.answers.main.probabilities.approve).toBeCloseTo(expected.A / 0.9, 12);
    expect(first.answers.main.probabilities.reject).toBeCloseTo(expected.B / 0.9, 12);
  });

  it('scripts answers by option text whatever the presentation order', async () => {
    fake.respond((body) => ({ labels: byOptionText(body, { approve: 0.75, reject: 0.25 }) }));
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    const reply = await engine.ask(STATE, { main: fund, reversed }, noDeadline());
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.75, 12);
    expect(reply.answers.reversed.probabilities.approve).toBeCloseTo(0.75, 12);
  });
});

describe('openai engine: calls and tokens', () => {
  it('asks every question concurrently and sums prompt tokens', async () => {
    const tokens: Record<string, number> = { [fund.instructions]: 100, [holds.instructions]: 20, [risk.instructions]: 3 };
    // No question is answered before all three are asked: asked one after another,
    // they would never all be in flight at once.
    fake.respond((body) => ({ until: fake.whenInFlight(3), usage: tokens[questionText(body)] }));
    const reply = await engine.ask(STATE, { main: fund, probe: holds, risk }, noDeadline());
    expect(fake.maxInFlight, 'questions in flight at once at the provider').toBe(3);
    expect(fake.requests).toHaveLength(3);
    expect(reply.inputTokens).toBe(123);
    expect(Object.keys(reply.answers).sort()).toEqual(['main', 'probe', 'risk']);
  });

  it('counts the prompt itself (o200k_base, chat framing) when the server reports no usage', async () => {
    fake.respond(() => ({ usage: null }));
    const reply = await engine.ask(STATE, { main: fund, probe: holds, risk }, noDeadline());
    const counted = fake.requests.map((r) => openaiPromptTokens(r.body));
    expect(counted.every((n) => n > 0)).toBe(true);
    expect(reply.inputTokens).toBe(counted.reduce((a, b) => a + b, 0));
  });

  it("sums the server's count where it gives one and its own count where not", async () => {
    fake.respond((body) => ({ usage: questionText(body) === holds.instructions ? null : 50 }));
    const reply = await engine.ask(STATE, { main: fund, probe: holds }, noDeadline());
    const unreported = fake.requests.find((r) => questionText(r.body) === holds.instructions)!;
    expect(reply.inputTokens).toBe(50 + openaiPromptTokens(unreported.body));
    expect(openaiPromptTokens(unreported.body)).not.toBe(50);
  });

  it("a stress decision's inputTokens: the reported counts and decide's own, summed over all its calls", async () => {
    const context = 'The plan costs 40k. The team has shipped twice. The deadline is in May.';
    const request = DecisionRequest.parse({ mode: 'choice', question: 'Go or wait?', context, options: ['go', 'wait'], depth: 'stress' });
    // The calls on the whole context report 7 tokens each; the without-fact calls report none.
    fake.respond((body) => ({ usage: factsText(body) === context ? 7 : null }));
    const outcome = await runDecision(request, engine, { signal: noDeadline() });
    const unreported = fake.requests.filter((r) => factsText(r.body) !== context);
    expect(fake.requests).toHaveLength(6);
    expect(unreported).toHaveLength(3);
    expect(outcome.inputTokens).toBe(3 * 7 + unreported.reduce((sum, r) => sum + openaiPromptTokens(r.body), 0));
  });

  it('counts facts that look like special tokens as the text they are', async () => {
    fake.respond(() => ({ usage: null }));
    const facts = 'The log ends with <|endoftext|> and <|im_start|>user.';
    const reply = await engine.ask(facts, { probe: holds }, noDeadline());
    expect(reply.inputTokens).toBe(openaiPromptTokens(fake.requests[0].body));
    expect(reply.inputTokens).toBeGreaterThan(o200k(facts));
  });

  it('fails the whole ask when one question has no usable answer', async () => {
    fake.respond((body) => (questionText(body) === holds.instructions ? { noLogprobs: true } : {}));
    const err = await failureOf(engine.ask(STATE, { main: fund, probe: holds }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('"probe"');
  });

  it('opens every call of a stress decision alike: one system message, then the facts; the labels come last', async () => {
    const context = 'The plan is funded. The team is ready. The deadline is near.';
    const request = DecisionRequest.parse({ mode: 'choice', question: 'Go or wait?', context, options: ['go', 'wait'], depth: 'stress' });
    await runDecision(request, engine, { signal: noDeadline() });
    const bodies = fake.requests.map((r) => r.body);
    // The main question, the probe and the reversed order on the whole context; one call per fact left out.
    expect(bodies).toHaveLength(6);
    expect(new Set(bodies.map(systemText)).size).toBe(1);
    expect(systemText(bodies[0])).not.toMatch(/\b(A|B|Yes|No)\b/);
    for (const body of bodies) expect(userText(body).startsWith(`Facts:\n${factsText(body)}\n\nQuestion:\n`)).toBe(true);
    // The three calls on the whole context part only after it, at their question.
    const whole = bodies.filter((body) => factsText(body) === context).map(userText);
    expect(whole).toHaveLength(3);
    const shared = `Facts:\n${context}\n\nQuestion:\n`;
    expect(whole.every((user) => user.startsWith(shared))).toBe(true);
    expect(whole.map((user) => user.slice(user.lastIndexOf('\n') + 1))).toEqual(
      expect.arrayContaining([
        'Reply with exactly one label: A or B. Write nothing else.',
        'Reply with exactly one label: Yes or No. Write nothing else.',
      ]),
    );
  });

  it('sends no Authorization header without a key', async () => {
    const keyless = createOpenAIEngine({ baseUrl: fake.url, model: 'fake-model' });
    await keyless.ask(STATE, { main: fund }, noDeadline());
    await keyless.close?.();
    expect(fake.requests[0].headers).not.toHaveProperty('authorization');
  });
});

describeHttpFailures('openai', {
  start: () => startOpenAIFake(),
  create: (options) => createOpenAIEngine({ ...options, model: 'fake-model' }),
  withPort: (_url, port) => `http://127.0.0.1:${port}/v1`,
  questions: { main: fund },
});

describe('openai engine: malformed answers', () => {
  it('rejects a completion without logprobs, naming the setting for such servers', async () => {
    for (const behaviour of [{ noLogprobs: true }, { omitLogprobs: true }]) {
      fake.respond(() => behaviour);
      const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toContain('returned no logprobs; set DECIDE_OPENAI_PROBABILITIES=verbalized');
    }
  });

  it('rejects logprobs without top_logprobs, without blaming the setting', async () => {
    fake.respond(() => ({ status: 200, body: '{"choices":[{"logprobs":{"content":null}}]}' }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('no top_logprobs');
    expect(err.message).not.toContain('DECIDE_OPENAI_PROBABILITIES');
  });

  it('rejects a completion of the wrong shape', async () => {
    for (const body of [
      '{"choices":[]}',
      '{"object":"chat.completion"}',
      '[1,2,3]',
      '{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":1}]}]}}]}',
    ]) {
      fake.respond(() => ({ status: 200, body }));
      const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
      expect(err.kind, body).toBe('bad_response');
    }
  });

  it('rejects an empty top_logprobs list: no mass on the labels at all', async () => {
    fake.respond(() => ({ topLogprobs: [] }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('put none of its top-token probability on the labels A, B');
  });
});
