import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/ledger/store.js';
import { audit } from '../ledger/helpers.js';
import { factsText } from '../fakes/openai-fake.js';
import type { OpenAIBehaviour } from '../fakes/openai-fake.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { startWithOpenAI, startWithSystemOne, type Running } from '../support/service.js';
import { eventually } from '../support/time.js';

/**
 * A decision deadline short enough to see it fire, on services used only for engines
 * that hang: there, nothing else has to finish within it. Every other service keeps
 * the suite's scaled deadline, which a loaded machine must never meet.
 */
const DEADLINE_THAT_FIRES_MS = 600;

/** Spends a key's 20 free decisions of today straight in the ledger, as 20 decisions would have. */
async function spendFreeAllowance(svc: Running, created: CreatedKey): Promise<void> {
  const caller = { keyId: created.keyId, passId: created.passId, keyHint: created.keyHint };
  for (let i = 0; i < 20; i++) {
    const now = new Date();
    const outcome = await svc.store.charges.reserve({ caller, depth: 'standard', ip: '127.0.0.1' }, now);
    if (!outcome.ok || outcome.reservation.kind !== 'free')
      throw new Error(`free decision ${i + 1} was not free: ${JSON.stringify(outcome)}`);
    await svc.store.charges.commit(outcome.reservation.id, now);
  }
}

describe('engine failures through the OpenAI-compatible engine', () => {
  let svc: Running;
  let hanging: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    hanging = await startWithOpenAI({ engineTimeoutMs: DEADLINE_THAT_FIRES_MS });
  });
  afterAll(async () => {
    await svc.close();
    await hanging.close();
  });
  beforeEach(() => {
    svc.fake.reset();
    hanging.fake.reset();
  });

  const cases: Array<[string, number, string, OpenAIBehaviour]> = [
    ['a 500', 503, 'engine_unavailable', { status: 500, body: '{"error":"boom"}' }],
    ['a 503 with Retry-After', 503, 'engine_unavailable', { status: 503, headers: { 'retry-after': '7' } }],
    ['429 twice', 429, 'engine_busy', { status: 429, headers: { 'retry-after': '0' } }],
    ['a 400 of the provider', 502, 'engine_bad_response', { status: 400, body: '{"error":"bad model"}' }],
    ['garbage', 502, 'engine_bad_response', { garbage: true }],
    ['a truncated body', 502, 'engine_bad_response', { truncated: true }],
    ['an endless body', 502, 'engine_bad_response', { padTo: Infinity }],
    ['no logprobs', 502, 'engine_bad_response', { noLogprobs: true }],
    ['no mass on the labels', 502, 'engine_bad_response', { labels: { The: 0.8, Maybe: 0.2 } }],
    ['a hang past the deadline', 504, 'engine_timeout', { hang: true }],
  ];

  it.each(cases)('%s → %i %s, and nothing is charged', async (_, status, code, behaviour) => {
    const target = behaviour.hang ? hanging : svc;
    const free = await target.newKey();
    // A paying key whose free decisions of today are spent: its decision is one of credits.
    const paying = await target.newKey(3);
    await spendFreeAllowance(target, paying);

    target.fake.respond(() => behaviour);
    for (const key of [free.key, paying.key]) {
      const res = await target.call('POST', '/v1/decisions', { key, json: CHOICE });
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.error).not.toContain('sk-');
    }
    target.fake.respond();
    expect((await target.call('GET', '/v1/usage', { key: free.key })).body).toMatchObject({ freeUsed: 0 });
    expect((await target.call('GET', '/v1/usage', { key: paying.key })).body).toMatchObject({ freeUsed: 20, passCredits: 3 });
    expect(audit(target.dir)).toEqual([]);
  });

  it('answers 504 once the deadline passes, naming it, and closes the hanging call', async () => {
    const { key } = await hanging.newKey();
    hanging.fake.respond(() => ({ hang: true }));
    const res = await hanging.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(504);
    expect(res.body.code).toBe('engine_timeout');
    // The decision's own deadline ended it, not the engine's (30 s by default, "did not
    // answer within … ms"), and the calls it abandoned are not left open at the provider.
    expect(res.body.error).toContain("the decision's deadline passed");
    await eventually(() => hanging.fake.inFlight === 0, 'the abandoned engine calls to be closed');
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

  it.each([
    ['0', 'retries one 429 and then serves'],
    ['1e3', 'a provider 429 with Retry-After: 1e3 is read as no Retry-After: retried after the short default, not engine_busy for 1000 s'],
  ])('Retry-After: %s: %s', async (retryAfter) => {
    const { key } = await svc.newKey();
    let calls = 0;
    svc.fake.respond(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': retryAfter } } : {}));
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
  let hanging: Awaited<ReturnType<typeof startWithSystemOne>>;
  beforeAll(async () => {
    svc = await startWithSystemOne();
    hanging = await startWithSystemOne({ engineTimeoutMs: DEADLINE_THAT_FIRES_MS });
  });
  afterAll(async () => {
    await svc.close();
    await hanging.close();
  });

  it.each([
    ['a question missing from answers', 502, 'engine_bad_response', { missing: ['sufficiency'] }],
    ['a 502 of the provider', 503, 'engine_unavailable', { status: 502 }],
    ['a truncated body', 502, 'engine_bad_response', { truncated: true }],
    ['an endless body', 502, 'engine_bad_response', { padTo: Infinity }],
    ['a hang', 504, 'engine_timeout', { hang: true }],
  ])('%s → %i %s, nothing charged', async (_, status, code, behaviour) => {
    const target = 'hang' in behaviour ? hanging : svc;
    const { key } = await target.newKey();
    target.fake.respond(() => behaviour);
    const res = await target.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await target.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(0);
  });
});
