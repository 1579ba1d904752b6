import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { factsText } from '../fakes/openai-fake.js';
import type { OpenAIBehaviour } from '../fakes/openai-fake.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { startWithOpenAI, startWithSystemOne, type Running } from '../support/service.js';

describe('engine failures through the OpenAI-compatible engine', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ engineTimeoutMs: 600 });
  });
  afterAll(() => svc.close());
  beforeEach(() => svc.fake.respond());

  const cases: Array<[string, number, string, OpenAIBehaviour]> = [
    ['a 500', 503, 'engine_unavailable', { status: 500, body: '{"error":"boom"}' }],
    ['a 503 with Retry-After', 503, 'engine_unavailable', { status: 503, headers: { 'retry-after': '7' } }],
    ['429 twice', 429, 'engine_busy', { status: 429, headers: { 'retry-after': '0' } }],
    ['a 400 of the provider', 502, 'engine_bad_response', { status: 400, body: '{"error":"bad model"}' }],
    ['garbage', 502, 'engine_bad_response', { garbage: true }],
    ['a truncated body', 502, 'engine_bad_response', { truncated: true }],
    ['an endless body', 502, 'engine_bad_response', { padTo: Infinity }],
    ['no logprobs', 502, 'engine_bad_response', { noLogprobs: true }],
    ['too little mass on labels', 502, 'engine_bad_response', { labels: { The: 0.8, A: 0.1, Yes: 0.1 } }],
    ['a hang past the deadline', 504, 'engine_timeout', { hang: true }],
  ];

  it.each(cases)('%s → %i %s, and nothing is charged', async (_, status, code, behaviour) => {
    const free = await svc.newKey();
    const paying = await svc.newKey(3);
    for (let i = 0; i < 20; i++) await svc.call('POST', '/v1/decisions', { key: paying.key, json: NOUL });

    svc.fake.respond(() => behaviour);
    for (const key of [free.key, paying.key]) {
      const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.error).not.toContain('sk-');
    }
    svc.fake.respond();
    expect((await svc.call('GET', '/v1/usage', { key: free.key })).body).toMatchObject({ freeUsed: 0 });
    expect((await svc.call('GET', '/v1/usage', { key: paying.key })).body).toMatchObject({ freeUsed: 20, passCredits: 3 });
    expect(audit(svc.dir)).toEqual([]);
  });

  it('answers 504 at about the deadline, not later', async () => {
    const { key } = await svc.newKey();
    svc.fake.respond(() => ({ hang: true }));
    const started = performance.now();
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(504);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('answers 502 naming the 1 MiB cap to a 300 MB answer, cutting its connection', async () => {
    const { key } = await svc.newKey();
    const before = svc.fake.streams.length;
    svc.fake.respond(() => ({ padTo: 300 * 2 ** 20 }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'engine_bad_response' });
    expect(res.body.error).toContain('larger than 1 MiB');
    const outcomes = await Promise.all(svc.fake.streams.slice(before));
    expect(outcomes.length).toBeGreaterThan(0);
    for (const outcome of outcomes) expect(outcome.complete).toBe(false);
  });

  it('retries one 429 and then serves', async () => {
    const { key } = await svc.newKey();
    let calls = 0;
    svc.fake.respond(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': '0' } } : {}));
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(200);
    expect(calls).toBe(3);
  });

  it('refunds all 5 credits when one check of a stress decision fails', async () => {
    const { key } = await svc.newKey(5);
    // Only the call that lacks the fact about transactions fails.
    svc.fake.respond((body) => (factsText(body).includes('transactions') ? {} : { status: 500 }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } });
    expect(res.status).toBe(503);
    expect((await svc.call('GET', '/v1/usage', { key })).body.passCredits).toBe(5);
    expect(audit(svc.dir)).toEqual([]);
  });

  it('503 when the provider cannot be reached at all', async () => {
    const { key } = await svc.newKey();
    const url = svc.fake.url;
    await svc.fake.close();
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('engine_unavailable');
    expect(res.body.error).not.toContain(url.replace('/v1', ''));
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(0);
  });
});

describe('engine failures through a System One engine', () => {
  let svc: Awaited<ReturnType<typeof startWithSystemOne>>;
  beforeAll(async () => {
    svc = await startWithSystemOne({ engineTimeoutMs: 600 });
  });
  afterAll(() => svc.close());

  it.each([
    ['a question missing from answers', 502, 'engine_bad_response', { missing: ['sufficiency'] }],
    ['a 502 of the provider', 503, 'engine_unavailable', { status: 502 }],
    ['a truncated body', 502, 'engine_bad_response', { truncated: true }],
    ['an endless body', 502, 'engine_bad_response', { padTo: Infinity }],
    ['a hang', 504, 'engine_timeout', { hang: true }],
  ])('%s → %i %s, nothing charged', async (_, status, code, behaviour) => {
    const { key } = await svc.newKey();
    svc.fake.respond(() => behaviour);
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(0);
  });
});
