import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_VERSION, createAnthropicEngine, PROBABILITY_TOOL } from '../../src/engine/anthropic.js';
import type { ChoiceQuestion, Engine, NoulQuestion } from '../../src/engine/engine.js';
import {
  defaultInputTokens,
  defaultToolInput,
  startAnthropicFake,
  type AnthropicBehaviour,
  type AnthropicFake,
} from '../fakes/anthropic-fake.js';
import { byOptionText, offeredOptions, questionText, userText } from '../fakes/openai-fake.js';
import { describeHttpFailures, SUITE_KEY } from './failure-suite.js';
import { failureOf, fund, holds, noDeadline, risk, STATE } from './helpers.js';
import { scaled } from '../support/time.js';
import { anthropicPromptTokens } from '../support/tokens.js';

const KEY = 'sk-ant-test-4b1d-SECRET';

let fake: AnthropicFake;
let engine: Engine;
beforeEach(async () => {
  fake = await startAnthropicFake();
  engine = createAnthropicEngine({ baseUrl: fake.url, apiKey: KEY, model: 'claude-test', timeoutMs: scaled(5_000) });
});
afterEach(async () => {
  await engine.close?.();
  await fake.close();
});

describe('anthropic engine: the request', () => {
  it('forces one tool call per question whose schema holds one probability per label', async () => {
    await engine.ask(STATE, { main: fund }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    const { body, headers, path } = fake.requests[0];
    expect(path).toBe('/v1/messages');
    expect(headers['x-api-key']).toBe(KEY);
    expect(headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(headers).not.toHaveProperty('authorization');
    expect(body).toMatchObject({ model: 'claude-test', temperature: 0, tool_choice: { type: 'tool', name: PROBABILITY_TOOL } });
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0]).toMatchObject({
      name: PROBABILITY_TOOL,
      input_schema: { type: 'object', required: ['A', 'B'], additionalProperties: false },
    });
    expect(Object.keys(body.tools[0].input_schema.properties)).toEqual(['A', 'B']);
    expect(userText(body)).toContain('the probability, from 0 to 1');
    expect(body.messages).toEqual([{ role: 'user', content: expect.any(String) }]);
    expect(userText(body)).toContain(STATE);
    expect(questionText(body)).toBe('Which should we do with the plan?');
  });

  it('presents options in the order given, and maps the letters back when reversed', async () => {
    const reversed: ChoiceQuestion = { ...fund, instructions: 'Reversed?', criteria: [...fund.criteria].reverse() };
    fake.respond(() => ({ labels: { A: 0.8, B: 0.2 } }));
    const reply = await engine.ask(STATE, { main: fund, reversed }, noDeadline());
    const sent = (instructions: string) => offeredOptions(fake.requests.find((r) => questionText(r.body) === instructions)!.body);
    expect(sent(fund.instructions)).toEqual([
      { label: 'A', text: 'approve — the plan is funded' },
      { label: 'B', text: 'reject' },
    ]);
    expect(sent('Reversed?')).toEqual([
      { label: 'A', text: 'reject' },
      { label: 'B', text: 'approve — the plan is funded' },
    ]);
    expect(reply.answers.main.probabilities).toEqual({ approve: expect.closeTo(0.8, 12), reject: expect.closeTo(0.2, 12) });
    expect(reply.answers.reversed.probabilities).toEqual({ reject: expect.closeTo(0.8, 12), approve: expect.closeTo(0.2, 12) });
    expect(Object.keys(reply.answers.reversed.probabilities)).toEqual(['reject', 'approve']);
  });

  it('presents No first when the criteria put false first, and labels score levels 1 to 3', async () => {
    const noFirst: NoulQuestion = { ...holds, criteria: { false: 'it does not hold', true: 'it holds' } };
    const stated: Record<string, Record<string, number>> = {
      [holds.instructions]: { No: 0.7, Yes: 0.3 },
      [risk.instructions]: { 1: 0.2, 2: 0.2, 3: 0.6 },
    };
    fake.respond((body) => ({ labels: stated[questionText(body)] }));
    const reply = await engine.ask(STATE, { noFirst, risk }, noDeadline());
    const noul = fake.requests.find((r) => questionText(r.body) === holds.instructions)!.body;
    expect(offeredOptions(noul)).toEqual([
      { label: 'No', text: 'it does not hold' },
      { label: 'Yes', text: 'it holds' },
    ]);
    expect(Object.keys(noul.tools[0].input_schema.properties)).toEqual(['No', 'Yes']);
    expect(reply.answers.noFirst).toEqual({ type: 'noul', yes: expect.closeTo(0.3, 12) });
    expect(reply.answers.risk.probabilities).toEqual([expect.closeTo(0.2, 12), expect.closeTo(0.2, 12), expect.closeTo(0.6, 12)]);
  });
});

describe('anthropic engine: stated probabilities', () => {
  it('renormalises the tool input over the labels, as fractions or per cent', async () => {
    fake.respond(() => ({ labels: { A: 36, B: 60 } }));
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.375, 12);
    expect(reply.answers.main.probabilities.reject).toBeCloseTo(0.625, 12);
  });

  it('refuses weights that are not probabilities, as bad_response', async () => {
    fake.respond(() => ({ labels: { A: 30, B: 50 } }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('which are not probabilities');
  });

  it('scripts answers by option text whatever the presentation order', async () => {
    fake.respond((body) => ({ labels: byOptionText(body, { approve: 0.75, reject: 0.25 }) }));
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    const reply = await engine.ask(STATE, { main: fund, reversed }, noDeadline());
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.75, 12);
    expect(reply.answers.reversed.probabilities.approve).toBeCloseTo(0.75, 12);
  });

  it('reproduces the fake default input and sums input tokens over the calls', async () => {
    const reply = await engine.ask(STATE, { main: fund, probe: holds, risk }, noDeadline());
    expect(fake.requests).toHaveLength(3);
    const main = fake.requests.find((r) => questionText(r.body) === fund.instructions)!.body;
    const expected = defaultToolInput(main);
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(expected.A, 12);
    expect(reply.answers.main.probabilities.reject).toBeCloseTo(expected.B, 12);
    expect(reply.inputTokens).toBe(fake.requests.reduce((sum, r) => sum + defaultInputTokens(r.body), 0));
  });

  it('counts the prompt itself, tool definition included, where a call reports no usage, and sums it with the reported counts', async () => {
    fake.respond((body) => ({ usage: questionText(body) === holds.instructions ? null : 50 }));
    const reply = await engine.ask(STATE, { main: fund, probe: holds, risk }, noDeadline());
    const unreported = fake.requests.find((r) => questionText(r.body) === holds.instructions)!;
    expect(anthropicPromptTokens(unreported.body)).toBeGreaterThan(0);
    expect(reply.inputTokens).toBe(50 + anthropicPromptTokens(unreported.body) + 50);
  });
});

describe('anthropic engine: unusable tool input', () => {
  const cases: Array<[string, AnthropicBehaviour, string]> = [
    [
      'no tool_use block',
      { content: [{ type: 'text', text: 'I would approve.' }], stopReason: 'end_turn' },
      'no tool call (stop_reason end_turn)',
    ],
    ['a call of another tool', { toolName: 'get_weather' }, 'a tool other than record_probabilities ("get_weather")'],
    ['a tool_use block without a name', { content: [{ type: 'tool_use', input: { A: 1, B: 0 } }] }, 'malformed tool call'],
    ['an input that is not an object', { input: 'A' }, 'not an object of probabilities'],
    ['an input that is an array', { input: [0.5, 0.5] }, 'not an object of probabilities'],
    ['a probability that is a string', { input: { A: '0.5', B: 0.5 } }, '"A" "0.5"'],
    ['a negative probability', { labels: { A: 1.1, B: -0.1 } }, '"B" -0.1'],
    ['a label left out', { labels: { A: 1 } }, 'no probability for "B"'],
    ['a label not offered', { labels: { A: 0.5, B: 0.3, C: 0.2 } }, 'not offered: "C"'],
    ['no mass at all', { labels: { A: 0, B: 0 } }, 'no usable mass'],
    ['a tool input cut off at max_tokens', { stopReason: 'max_tokens' }, 'max_tokens'],
    ['a message of the wrong shape', { content: 'A' as unknown as unknown[] }, 'not a Messages API message'],
  ];
  for (const [what, behaviour, mention] of cases) {
    it(`rejects ${what} as bad_response`, async () => {
      fake.respond(() => behaviour);
      const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toContain('"main"');
      expect(err.message).toContain(mention);
    });
  }

  it('rejects an infinite probability (1e999 on the wire)', async () => {
    const body = `{"type":"message","content":[{"type":"tool_use","id":"t","name":"${PROBABILITY_TOOL}","input":{"A":1e999,"B":0.5}}],"stop_reason":"tool_use"}`;
    fake.respond(() => ({ status: 200, body }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('Infinity');
  });
});

describe('anthropic engine: error JSON', () => {
  it('retries a 529 overloaded_error once and returns the second answer', async () => {
    let n = 0;
    fake.respond(() => (n++ === 0 ? { status: 529, headers: { 'retry-after': '0' } } : {}));
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(reply.answers.main.type).toBe('choice');
    expect(fake.requests).toHaveLength(2);
  });

  it('reports busy after a second 529, and at once when Retry-After is past the cap', async () => {
    fake.respond(() => ({ status: 529, headers: { 'retry-after': '0' } }));
    const again = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(again).toMatchObject({ kind: 'busy', retryAfter: 0 });
    expect(again.message).toContain('overloaded (HTTP 529');
    expect(fake.requests).toHaveLength(2);
    fake.respond(() => ({ status: 529, headers: { 'retry-after': '30' } }));
    expect(await failureOf(engine.ask(STATE, { main: fund }, noDeadline()))).toMatchObject({ kind: 'busy', retryAfter: 30 });
    expect(fake.requests).toHaveLength(3);
  });

  it('treats an overloaded_error under another status as busy too', async () => {
    fake.respond(() => ({ status: 503, errorType: 'overloaded_error', headers: { 'retry-after': '5' } }));
    expect(await failureOf(engine.ask(STATE, { main: fund }, noDeadline()))).toMatchObject({ kind: 'busy', retryAfter: 5 });
  });

  it('names the error type but never quotes the error message', async () => {
    const echo = JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } });
    fake.respond(() => ({ status: 401, body: echo }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toBe('anthropic engine refused the request with HTTP 401 (authentication_error)');
    fake.respond(() => ({ status: 500 }));
    expect((await failureOf(engine.ask(STATE, { main: fund }, noDeadline()))).message).toBe(
      'anthropic engine answered HTTP 500 (api_error)',
    );
  });

  it('ignores an error type that does not look like one', async () => {
    fake.respond(() => ({ status: 400, errorType: `Bearer ${KEY}` }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.message).toBe('anthropic engine refused the request with HTTP 400');
  });
});

describeHttpFailures('anthropic', {
  start: () => startAnthropicFake(),
  create: (options) => createAnthropicEngine({ ...options, apiKey: options.apiKey ?? SUITE_KEY, model: 'claude-test' }),
  withPort: (_url, port) => `http://127.0.0.1:${port}`,
  questions: { main: fund },
  keyHeaders: (key) => ({ 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION }),
});
