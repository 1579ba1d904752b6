import { APIError, AuthenticationError, choice, InternalServerError, noul, RateLimitError, score, TypeSafeClient } from '@typesafe-ai/sdk';
import { describe, expect, it } from 'vitest';
import { questionText } from '../fakes/openai-fake.js';
import { audit } from '../ledger/helpers.js';
import { openaiEnv, runJson, startServe, useServeFixture } from '../support/cli.js';

const SECRET = 'sk-engine-5ecret-for-the-sdk-test-4321';

const TICKET = 'I was charged twice for my subscription this month. Please refund one of the payments today.';

/** The three kinds of question in one request, as the SDK's helpers build them. */
const QUESTIONS = {
  topic: choice('What is this ticket about?', { billing: 'Payments, refunds, invoices', technical: null, other: null }),
  urgent: noul('Does the customer ask for something today?'),
  anger: score('How upset is the customer?', ['calm', 'annoyed', 'furious']),
};

/** No retries: the SDK would otherwise retry every 429 and 5xx twice, with back-off. */
const client = (baseURL: string, apiKey: string) => new TypeSafeClient({ baseURL, apiKey, retry: { maxRetries: 0 }, logLevel: 'off' });

describe('the TypeSafe SDK against decide serve', () => {
  const fixture = useServeFixture();

  async function serving(extra: Record<string, string> = {}) {
    const { db } = fixture.tmp;
    const server = await startServe(['--db', db], openaiEnv(fixture.fake.url, SECRET, { DECIDE_MODEL: 'qwen-loopback', ...extra }));
    const created = await runJson<{ key: string; passId: string }>(['key', 'create', '--create', '--json', '--db', db]);
    return { server, db, ...created };
  }
  const usageOf = async (url: string, key: string) =>
    (await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<{
      freeUsed: number;
      passCredits: number;
    }>;
  /** `n` yes/no questions, named q1… */
  const nouls = (n: number, wording = 'Is the customer asking for money back?') =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i + 1}`, noul(`${wording} (${i + 1})`)]));

  it('answers choice, noul and score questions of one request with typed answers, and lists its model', async () => {
    const { server, key } = await serving();
    const sdk = client(server.url, key);
    const { answers, model, usage } = await sdk.systemOne({ state: TICKET, questions: QUESTIONS });

    expect(model).toBe('qwen-loopback');
    expect(Object.keys(answers).sort()).toEqual(['anger', 'topic', 'urgent']);
    expect(answers.topic.type).toBe('choice');
    expect(Object.keys(answers.topic.probabilities)).toEqual(['billing', 'technical', 'other']);
    const topic = Object.values(answers.topic.probabilities);
    expect(topic.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(answers.topic.choice).toBe(Object.entries(answers.topic.probabilities).sort((a, b) => b[1] - a[1])[0][0]);
    expect(answers.topic.confidence).toBeGreaterThanOrEqual(0);
    expect(answers.topic.confidence).toBeLessThanOrEqual(1);

    expect(answers.urgent.type).toBe('noul');
    expect(answers.urgent.noul).toBeGreaterThan(0);
    expect(answers.urgent.noul).toBeLessThan(1);

    expect(answers.anger.type).toBe('score');
    expect(answers.anger.legend).toEqual({ 0: 'calm', 1: 'annoyed', 2: 'furious' });
    const levels = answers.anger.probabilities;
    expect(Object.keys(levels)).toEqual(['0', '1', '2']);
    expect(answers.anger.score).toBeCloseTo(levels[1] + 2 * levels[2], 3);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBe(0);

    // One engine call per question (no debiasing on a remote engine), on the ticket.
    expect(fixture.fake.requests).toHaveLength(3);
    for (const r of fixture.fake.requests) expect(JSON.stringify(r.body)).toContain('charged twice');

    const models = await sdk.models.list();
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ name: 'qwen-loopback' });
    expect(models[0].release_date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(models[0].description).toContain('openai');

    // Three questions, three free decisions.
    expect((await usageOf(server.url, key)).freeUsed).toBe(3);
  });

  it('answers every question or fails whole: a question the engine could not read is a 502 the SDK raises, and nothing is charged', async () => {
    const { server, key } = await serving();
    // Nothing of its mass on the labels: the engine cannot read this question.
    fixture.fake.respond((body) => (questionText(body).includes('unreadable') ? { labels: { The: 1 } } : {}));
    const sdk = client(server.url, key);
    const failed = await sdk
      .systemOne({
        state: TICKET,
        questions: {
          money: noul('Is it about money?'),
          lost: noul('An unreadable question?'),
          team: choice('Who handles it?', { billing: null, support: null }),
        },
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((failed as APIError).status).toBe(502);
    expect((failed as APIError).message).toMatch(
      /^502 the decision engine's answer was unusable: question "lost": openai engine put none of its top-token probability on the labels/,
    );
    expect((failed as APIError).requestId).toMatch(/^req_/);
    expect((await usageOf(server.url, key)).freeUsed).toBe(0);
  });

  it('takes the format’s largest questions: 255 options and 10 levels', async () => {
    const { server, key } = await serving();
    const queues = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`queue ${i + 1}`, i === 0 ? 'the default queue' : null]));
    const levels = [
      'urgency 0',
      'urgency 1',
      'urgency 2',
      'urgency 3',
      'urgency 4',
      'urgency 5',
      'urgency 6',
      'urgency 7',
      'urgency 8',
      'urgency 9',
    ] as const;
    const { answers } = await client(server.url, key).systemOne({
      state: TICKET,
      questions: { queue: choice('Which queue?', queues), urgency: score('How urgent?', levels) },
    });
    expect(Object.keys(answers.queue.probabilities)).toEqual(Object.keys(queues));
    expect(Object.values(answers.queue.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(Object.keys(answers.urgency.probabilities)).toHaveLength(10);
    expect(answers.urgency.legend).toEqual(Object.fromEntries(levels.map((l, i) => [i, l])));
  });

  it("raises the SDK's own errors: AuthenticationError, RateLimitError past the allowance, APIError with the sentence for 402", async () => {
    const { server, key, passId, db } = await serving();
    const bad = client(server.url, 'dcd_api_not-a-real-key-at-all');
    await expect(bad.systemOne({ state: TICKET, questions: QUESTIONS })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(bad.models.list()).rejects.toBeInstanceOf(AuthenticationError);

    // 21 questions, a free allowance of 20, a pass never funded: 429, nothing taken, nothing asked.
    const sdk = client(server.url, key);
    const limited = await sdk.systemOne({ state: TICKET, questions: nouls(21) }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).message).toMatch(
      /^429 21 questions cost 21 decisions \(1 each, from the free allowance of 20 a day, then 1 credit\)/,
    );
    expect((limited as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    expect(fixture.fake.requests).toHaveLength(0);
    expect(await usageOf(server.url, key)).toMatchObject({ freeUsed: 0 });

    // 20 fit the allowance; then one credit pays one question, not two.
    expect(Object.keys((await sdk.systemOne({ state: TICKET, questions: nouls(20) })).answers)).toHaveLength(20);
    await runJson(['pass', 'fund', '--pass', passId, '--credits', '1', '--db', db]);
    const refused = await sdk.systemOne({ state: TICKET, questions: nouls(2) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(402);
    expect((refused as APIError).message).toBe(
      "402 2 questions cost 2 decisions (1 each, from the free allowance of 20 a day, then 1 credit); what is left of today's free allowance and the pass's credits does not cover them",
    );
    expect(await usageOf(server.url, key)).toMatchObject({ freeUsed: 20, passCredits: 1 });
    await sdk.systemOne({ state: TICKET, questions: nouls(1) });
    expect(await usageOf(server.url, key)).toMatchObject({ freeUsed: 20, passCredits: 0 });
    await server.stop();
    expect(audit(fixture.tmp.dir)).toEqual([]);
  });
});
