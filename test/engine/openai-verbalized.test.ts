import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChoiceQuestion, Engine } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import {
  byOptionText,
  defaultStatedProbabilities,
  offeredOptions,
  questionText,
  startOpenAIFake,
  userText,
  type OpenAIBehaviour,
  type OpenAIFake,
} from '../fakes/openai-fake.js';
import { failureOf, fund, holds, noDeadline, risk, STATE } from './helpers.js';
import { scaled } from '../support/time.js';
import { openaiPromptTokens } from '../support/tokens.js';

let fake: OpenAIFake;
let engine: Engine;
beforeEach(async () => {
  fake = await startOpenAIFake();
  engine = createOpenAIEngine({ baseUrl: fake.url, model: 'no-logprobs', probabilities: 'verbalized', timeoutMs: scaled(5_000) });
});
afterEach(async () => {
  await engine.close?.();
  await fake.close();
});

describe('openai engine, verbalized: the request', () => {
  it('asks for a strict json_schema answer with one probability per label, and no logprobs', async () => {
    await engine.ask(STATE, { main: fund }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    const { body } = fake.requests[0];
    expect(body).toMatchObject({
      model: 'no-logprobs',
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: expect.any(String),
          strict: true,
          schema: { type: 'object', required: ['A', 'B'], additionalProperties: false },
        },
      },
    });
    expect(Object.keys(body.response_format.json_schema.schema.properties)).toEqual(['A', 'B']);
    expect(body).not.toHaveProperty('logprobs');
    expect(body).not.toHaveProperty('top_logprobs');
    expect(body.max_tokens).toBeGreaterThan(1);
    expect(userText(body)).toContain('the probability, from 0 to 1');
    expect(userText(body)).toContain(STATE);
    expect(offeredOptions(body)).toEqual([
      { label: 'A', text: 'approve — the plan is funded' },
      { label: 'B', text: 'reject' },
    ]);
  });

  it('presents reversed options reversed and maps the letters back', async () => {
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    fake.respond(() => ({ labels: { A: 0.8, B: 0.2 } }));
    const reply = await engine.ask(STATE, { reversed }, noDeadline());
    expect(offeredOptions(fake.requests[0].body).map((o) => o.text)).toEqual(['reject', 'approve — the plan is funded']);
    expect(reply.answers.reversed.probabilities).toEqual({ reject: expect.closeTo(0.8, 12), approve: expect.closeTo(0.2, 12) });
  });
});

describe('openai engine, verbalized: stated probabilities', () => {
  it('reads fractions and per cent, renormalises sums within 10 % of 1, and sums prompt tokens', async () => {
    const stated: Record<string, OpenAIBehaviour> = {
      [fund.instructions]: { labels: { A: 70, B: 30 }, usage: 100 },
      [holds.instructions]: { labels: { Yes: 0.27, No: 0.63 }, usage: 20 },
      [risk.instructions]: { labels: { 1: 0.22, 2: 0.22, 3: 0.66 }, usage: 3 },
    };
    fake.respond((body) => stated[questionText(body)]);
    const reply = await engine.ask(STATE, { main: fund, probe: holds, risk }, noDeadline());
    expect(reply.answers.main.probabilities).toEqual({ approve: expect.closeTo(0.7, 12), reject: expect.closeTo(0.3, 12) });
    expect(reply.answers.probe).toEqual({ type: 'noul', yes: expect.closeTo(0.3, 12) });
    expect(reply.answers.risk.probabilities).toEqual([expect.closeTo(0.2, 12), expect.closeTo(0.2, 12), expect.closeTo(0.6, 12)]);
    expect(reply.inputTokens).toBe(123);
  });

  it("sums the server's count where it gives one and the prompt's own count (messages, not the schema) where not", async () => {
    fake.respond((body) => ({ usage: questionText(body) === holds.instructions ? null : 40 }));
    const reply = await engine.ask(STATE, { main: fund, probe: holds }, noDeadline());
    const unreported = fake.requests.find((r) => questionText(r.body) === holds.instructions)!;
    expect(unreported.body.response_format.type).toBe('json_schema');
    expect(openaiPromptTokens(unreported.body)).toBeGreaterThan(0);
    expect(reply.inputTokens).toBe(40 + openaiPromptTokens(unreported.body));
  });

  it('reads the fake default, which renormalises like its logprob answer', async () => {
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    const expected = defaultStatedProbabilities(fake.requests[0].body);
    const sum = expected.A + expected.B;
    expect(sum).toBeCloseTo(0.9, 12);
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(expected.A / sum, 12);
  });

  it('scripts answers by option text whatever the presentation order', async () => {
    fake.respond((body) => ({ labels: byOptionText(body, { approve: 0.75, reject: 0.25 }) }));
    const reversed: ChoiceQuestion = { ...fund, criteria: [...fund.criteria].reverse() };
    const reply = await engine.ask(STATE, { main: fund, reversed }, noDeadline());
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.75, 12);
    expect(reply.answers.reversed.probabilities.approve).toBeCloseTo(0.75, 12);
  });

  it('accepts an answer wrapped in a code fence by a server that ignores response_format', async () => {
    fake.respond(() => ({ content: '```json\n{"A": 0.6, "B": 0.4}\n```' }));
    const reply = await engine.ask(STATE, { main: fund }, noDeadline());
    expect(reply.answers.main.probabilities.approve).toBeCloseTo(0.6, 12);
  });
});

describe('openai engine, verbalized: unusable answers', () => {
  const cases: Array<[string, OpenAIBehaviour, string]> = [
    ['content that is not JSON', { content: 'A, mostly' }, 'is not JSON'],
    ['no content', { content: null }, 'has no content'],
    ['a refusal', { content: null, refusal: 'I cannot help with that.' }, 'is a refusal'],
    ['an answer cut off at max_tokens', { content: '{"A": 0.6, "B"', finishReason: 'length' }, 'max_tokens'],
    ['a JSON array', { content: '[0.6, 0.4]' }, 'not an object of probabilities'],
    ['a label left out', { labels: { A: 1 } }, 'no probability for "B"'],
    ['a label not offered', { labels: { A: 0.5, B: 0.3, C: 0.2 } }, 'not offered: "C"'],
    ['a negative probability', { labels: { A: 1.1, B: -0.1 } }, '"B" -0.1'],
    ['a probability that is a string', { content: '{"A": "0.6", "B": 0.4}' }, '"A" "0.6"'],
    ['an infinite probability', { content: '{"A": 1e999, "B": 0.4}' }, 'Infinity'],
    ['no mass at all', { labels: { A: 0, B: 0 } }, 'no usable mass'],
    [
      'weights that are not probabilities',
      { content: '{"A": 7777777777777777.69, "B": 7373737373737373}' },
      'not probabilities: they must sum to 1 (or 100, as per cent) within 10 %',
    ],
    ['fractions summing to 0.8', { labels: { A: 0.5, B: 0.3 } }, 'not probabilities'],
    ['per cent summing to 80', { labels: { A: 50, B: 30 } }, 'not probabilities'],
    ['a fraction beside per cent', { labels: { A: 0.6, B: 60 } }, 'not probabilities'],
    ['a completion of the wrong shape', { status: 200, body: '{"choices":[]}' }, 'not a chat completion'],
  ];
  for (const [what, behaviour, mention] of cases) {
    it(`rejects ${what} as bad_response`, async () => {
      fake.respond(() => behaviour);
      const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toContain('"main"');
      expect(err.message).toContain(mention);
      if (mention.startsWith('not probabilities')) expect(err.message).toContain('DECIDE_OPENAI_PROBABILITIES=verbalized');
    });
  }

  it('cuts off an endless answer at 1 MiB as bad_response', async () => {
    fake.respond(() => ({ padTo: Infinity }));
    const err = await failureOf(engine.ask(STATE, { main: fund }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('larger than 1 MiB');
    expect(await fake.streams[0]).toMatchObject({ complete: false });
  });
});
