import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicEngine, PROBABILITY_TOOL } from '../../src/engine/anthropic.js';
import type { ChoiceQuestion, Engine, ScoreQuestion } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { keysInOrder } from '../../src/json/key-order.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { fnv1a, seededDistribution } from '../fakes/http-fake.js';
import {
  choiceByName,
  offeredGroups,
  offeredLabels,
  offeredOptions,
  questionKind,
  startOpenAIFake,
  userText,
} from '../fakes/openai-fake.js';
import { choiceAnswer, scoreAnswer, startSystemOneFake } from '../fakes/systemone-fake.js';
import { scaled } from '../support/time.js';
import { openaiPromptTokens } from '../support/tokens.js';
import { failureOf, noDeadline, STATE } from './helpers.js';

/**
 * The format's largest questions, 255 options and 10 levels, through every remote
 * engine (the local engine's reading is tested in test/engine/local). The openai
 * engine's logprob reading sees at most 20 tokens, so it reads a choice of more than
 * 20 options in groups (src/engine/grouped.ts); grouped-accuracy.test.ts measures that
 * reading against the one-call reading.
 */

/** `n` options named like the format's clients name them, integer-like ones among them. */
function manyOptions(n: number): ChoiceQuestion {
  const names = Array.from({ length: n }, (_, i) => (i % 10 === 3 ? String(1000 - i) : `Queue ${String(i + 1).padStart(3, '0')}`));
  return {
    type: 'choice',
    instructions: 'Which queue should this ticket go to?',
    criteria: names.map((label, i) => ({ label, description: i % 2 ? `routed to team ${i}` : null })),
  };
}
const queue255 = manyOptions(255);
const tenLevels: ScoreQuestion = {
  type: 'score',
  instructions: 'How urgent is it?',
  criteria: Array.from({ length: 10 }, (_, i) => `urgency ${i}`),
};

/** A distribution over the options' names, the same for a seed. */
function modelOver(question: ChoiceQuestion, seed = 7): Record<string, number> {
  const p = seededDistribution(fnv1a(`many-${seed}`), question.criteria.length);
  return Object.fromEntries(question.criteria.map((o, i) => [o.label, p[i]]));
}

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});
async function started<F extends { close(): Promise<void> }>(fake: F, engine: (fake: F) => Engine) {
  const made = engine(fake);
  closing.push(
    () => fake.close(),
    async () => made.close?.(),
  );
  return made;
}

describe('openai engine (logprobs): more options than one reading can offer', () => {
  it('reads 255 options as 13 groups: P(group) · P(option | group), exactly the distribution of a consistent model', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) => createOpenAIEngine({ baseUrl: f.url, model: 'm', timeoutMs: scaled(5_000) }));
    const truth = modelOver(queue255);
    fake.respond((body) => ({ labels: choiceByName(body, truth), usage: 10 }));

    const reply = await engine.ask(STATE, { queue: queue255 }, noDeadline());
    const p = reply.answers.queue.probabilities;
    expect(Object.keys(p).sort()).toEqual(Object.keys(truth).sort());
    for (const [name, q] of Object.entries(truth)) expect(p[name], name).toBeCloseTo(q, 12);

    // One group question and one question per group, each offering at most 20 labels.
    expect(fake.requests).toHaveLength(14);
    for (const r of fake.requests) {
      expect(r.body).toMatchObject({ max_tokens: 1, logprobs: true, top_logprobs: 20 });
      expect(offeredLabels(r.body).length).toBeLessThanOrEqual(20);
    }
    const [group, ...within] = fake.requests.map((r) => r.body);
    const groups = offeredGroups(group);
    expect(groups.map((g) => g.label)).toEqual([...'ABCDEFGHIJKLM']);
    expect(groups.map((g) => g.members.length)).toEqual([...Array(8).fill(20), ...Array(5).fill(19)]);
    expect(userText(group)).toContain(
      'The options are shown in groups. Reply with exactly one label, that of the group that holds the best option: A, B',
    );
    // Every option once, in the order given (integer-like names where they were), with its description.
    const shown = queue255.criteria.map((o) => (o.description ? `${o.label} — ${o.description}` : o.label));
    expect(groups.flatMap((g) => g.members)).toEqual(shown);
    expect(within.flatMap((b) => offeredOptions(b).map((o) => o.text))).toEqual(shown);
    expect(within.map((b) => questionKind(b))).toEqual(Array(13).fill('choice'));
    // Tokens are every call's.
    expect(reply.inputTokens).toBe(140);
  });

  it("counts a grouped reading's calls without usage itself, each prompt as sent, and sums them with the reported ones", async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) => createOpenAIEngine({ baseUrl: f.url, model: 'm', timeoutMs: scaled(5_000) }));
    // The group question reports its tokens; the 13 questions within a group do not.
    fake.respond((body) => ({ usage: offeredGroups(body).length > 0 ? 10 : null }));
    const reply = await engine.ask(STATE, { queue: queue255 }, noDeadline());
    const [, ...within] = fake.requests.map((r) => r.body);
    expect(within).toHaveLength(13);
    expect(reply.inputTokens).toBe(10 + within.reduce((sum, body) => sum + openaiPromptTokens(body), 0));
  });

  it('reads 20 options in one call, as it always has, and 21 in three (two groups of 11 and 10)', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) => createOpenAIEngine({ baseUrl: f.url, model: 'm', timeoutMs: scaled(5_000) }));
    await engine.ask(STATE, { q: manyOptions(20) }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    expect(offeredLabels(fake.requests[0].body)).toHaveLength(20);
    fake.reset();
    await engine.ask(STATE, { q: manyOptions(21) }, noDeadline());
    expect(fake.requests).toHaveLength(3);
    expect(offeredGroups(fake.requests[0].body).map((g) => g.members.length)).toEqual([11, 10]);
  });

  it('fails the question when any of its readings is unusable: the group question, or a group', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) => createOpenAIEngine({ baseUrl: f.url, model: 'm', timeoutMs: scaled(5_000) }));
    fake.respond((body) => (offeredGroups(body).length > 0 ? { labels: { Sure: 1 } } : {}));
    const groupFails = await failureOf(engine.ask(STATE, { queue: queue255 }, noDeadline()));
    expect(groupFails.kind).toBe('bad_response');
    expect(groupFails.message).toMatch(/put none of its top-token probability on the labels A, B, C/);

    fake.respond((body) => (offeredOptions(body).some((o) => o.text.startsWith('Queue 250')) ? { noLogprobs: true } : {}));
    const oneGroupFails = await failureOf(engine.ask(STATE, { queue: queue255 }, noDeadline()));
    expect(oneGroupFails.kind).toBe('bad_response');
    expect(oneGroupFails.message).toContain('returned no logprobs');
  });

  it('says so when a server of fewer top logprobs cannot be read in two steps', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) =>
      createOpenAIEngine({ baseUrl: f.url, model: 'm', labelsPerReading: 5, timeoutMs: scaled(5_000) }),
    );
    const err = await failureOf(engine.ask(STATE, { queue: manyOptions(26) }, noDeadline()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toBe('openai engine reads at most 25 options with 5 labels a reading; "queue" has 26');
    expect(fake.requests).toHaveLength(0);
    expect(() => createOpenAIEngine({ baseUrl: fake.url, model: 'm', labelsPerReading: 21 })).toThrow(/from 2 to 20, got 21/);
  });

  it('reads ten levels as the single digits 0 to 9, in one call', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) => createOpenAIEngine({ baseUrl: f.url, model: 'm', timeoutMs: scaled(5_000) }));
    fake.respond(() => ({ labels: { '0': 0.05, '7': 0.6, ' 7': 0.1, '9': 0.25 } }));
    const reply = await engine.ask(STATE, { urgency: tenLevels }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    expect(offeredOptions(fake.requests[0].body)).toEqual(tenLevels.criteria.map((text, i) => ({ label: String(i), text })));
    const p = reply.answers.urgency.probabilities;
    expect(p).toHaveLength(10);
    expect(p[7]).toBeCloseTo(0.7, 12);
    expect(p[9]).toBeCloseTo(0.25, 12);
    expect(p[0]).toBeCloseTo(0.05, 12);
  });
});

describe('engines that have the model state its probabilities: one call with up to 255 of them', () => {
  it('openai (verbalized): a json_schema of 255 labels, A to IU, and room in max_tokens for each', async () => {
    const fake = await startOpenAIFake();
    const engine = await started(fake, (f) =>
      createOpenAIEngine({ baseUrl: f.url, model: 'm', probabilities: 'verbalized', timeoutMs: scaled(5_000) }),
    );
    const truth = modelOver(queue255, 11);
    fake.respond((body) => ({ labels: choiceByName(body, truth) }));
    const reply = await engine.ask(STATE, { queue: queue255 }, noDeadline());
    expect(fake.requests).toHaveLength(1);
    const { body } = fake.requests[0];
    const schema = body.response_format.json_schema.schema;
    expect(Object.keys(schema.properties)).toHaveLength(255);
    expect(schema.required.slice(24, 28)).toEqual(['Y', 'Z', 'AA', 'AB']);
    expect(schema.required.at(-1)).toBe('IU');
    expect(body.max_tokens).toBe(256 + 12 * 235);
    for (const [name, q] of Object.entries(truth)) expect(reply.answers.queue.probabilities[name], name).toBeCloseTo(q, 12);
  });

  it('anthropic: one forced tool of 255 probabilities, and ten levels labelled 0 to 9', async () => {
    const fake = await startAnthropicFake();
    const engine = await started(fake, (f) =>
      createAnthropicEngine({ baseUrl: f.url, apiKey: 'sk-ant-many', model: 'claude-test', timeoutMs: scaled(5_000) }),
    );
    const truth = modelOver(queue255, 13);
    const stated = [0.1, 0, 0, 0, 0, 0.5, 0, 0, 0, 0.4];
    fake.respond((body) => ({
      labels: questionKind(body) === 'choice' ? choiceByName(body, truth) : Object.fromEntries(stated.map((p, i) => [String(i), p])),
    }));
    const reply = await engine.ask(STATE, { queue: queue255, urgency: tenLevels }, noDeadline());
    expect(fake.requests).toHaveLength(2);
    const choice = fake.requests.find((r) => questionKind(r.body) === 'choice')!.body;
    expect(choice.tool_choice).toEqual({ type: 'tool', name: PROBABILITY_TOOL });
    expect(choice.tools[0].input_schema.required).toHaveLength(255);
    expect(choice.max_tokens).toBe(256 + 12 * 235);
    for (const [name, q] of Object.entries(truth)) expect(reply.answers.queue.probabilities[name], name).toBeCloseTo(q, 12);
    const score = fake.requests.find((r) => questionKind(r.body) === 'score')!.body;
    expect(Object.keys(score.tools[0].input_schema.properties)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(reply.answers.urgency.probabilities).toEqual(stated.map((x) => expect.closeTo(x, 12)));
  });
});

describe('systemone engine: passes the largest questions on as they are', () => {
  it('sends 255 options in their order, integer-like names too, and 10 levels; reads the answers back', async () => {
    const fake = await startSystemOneFake();
    const engine = await started(fake, (f) => createSystemOneEngine({ baseUrl: f.url, model: 'jev-test', timeoutMs: scaled(5_000) }));
    const truth = modelOver(queue255, 17);
    const levels = [0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2];
    fake.respond(() => ({ answers: { queue: choiceAnswer(truth), urgency: scoreAnswer(levels, tenLevels.criteria) } }));
    const reply = await engine.ask(STATE, { queue: queue255, urgency: tenLevels }, noDeadline());
    const sent = fake.requests[0].body.questions;
    // As written on the wire: the fake records the key order it received.
    expect(keysInOrder(sent.queue.criteria)).toEqual(queue255.criteria.map((o) => o.label));
    expect(keysInOrder(sent.queue.criteria).slice(0, 4)).toEqual(['Queue 001', 'Queue 002', 'Queue 003', '997']);
    expect(sent.urgency.criteria).toEqual(tenLevels.criteria);
    for (const [name, q] of Object.entries(truth)) expect(reply.answers.queue.probabilities[name], name).toBeCloseTo(q, 12);
    expect(reply.answers.urgency.probabilities).toEqual(levels.map((x) => expect.closeTo(x, 12)));
  });
});
