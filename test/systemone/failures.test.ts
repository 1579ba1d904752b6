import { afterEach, describe, expect, it } from 'vitest';
import { questionText } from '../fakes/openai-fake.js';
import { startWithOpenAI, type Running, type StartOptions } from '../support/service.js';

const STATE = 'The invoice was paid twice. The customer wrote three times this week.';
const TWO = { a: { type: 'noul' }, b: { type: 'noul', instructions: 'Is it urgent?' } };

/**
 * How `/v1/systemone` and `/v1/models` fail: as the System One format's clients expect
 * (`{"detail": {"error_type", "message"}}`, decide's own code as `x_code`), with a
 * request id on every answer, and a request answered whole or not at all.
 */
describe('POST /v1/systemone and GET /v1/models: failures, whole requests and request ids', () => {
  let svc: Running;
  afterEach(() => svc?.close());
  async function start(options: StartOptions = {}) {
    svc = await startWithOpenAI(options);
    return (await svc.newKey()).key;
  }
  const ask = (key: string | undefined, json: unknown, headers: Record<string, string> = {}) =>
    svc.call('POST', '/v1/systemone', { key, json, headers });
  const usage = async (key: string) => (await svc.call('GET', '/v1/usage', { key })).body;

  it('answers every question or none: one the engine cannot read fails the request, 502, and nothing is charged', async () => {
    const key = await start();
    // Nothing of its mass on the labels: the engine cannot read this question.
    svc.fake.respond((body) => (questionText(body).includes('unreadable') ? { labels: { The: 1 } } : {}));
    const res = await ask(key, {
      state: STATE,
      questions: {
        money: { type: 'noul', instructions: 'Is it about money?' },
        lost: { type: 'noul', instructions: 'An unreadable question?' },
      },
    });
    expect(res.status).toBe(502);
    expect(res.body.detail).toEqual({
      error_type: 'engine_error',
      x_code: 'engine_bad_response',
      message: expect.stringMatching(
        /^the decision engine's answer was unusable: question "lost": openai engine put none of its top-token probability on the labels/,
      ),
      x_request_id: res.headers['x-request-id'],
    });
    expect((await usage(key)).freeUsed).toBe(0);

    // An engine that is down fails the request the same way: whole, and free.
    svc.fake.respond(() => ({ status: 503 }));
    const down = await ask(key, { state: STATE, questions: TWO });
    expect(down.status).toBe(503);
    expect(down.body.detail).toMatchObject({ error_type: 'engine_error', x_code: 'engine_unavailable' });
    expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
    expect((await usage(key)).freeUsed).toBe(0);
    expect((await svc.call('GET', '/v1/metrics')).body.api.samples).toBe(0);
  });

  it('says who may not ask as the format does: 401 authentication_error, with WWW-Authenticate', async () => {
    await start();
    for (const key of [undefined, 'dcd_api_not-a-real-key-at-all']) {
      const res = await ask(key, { state: STATE, questions: TWO });
      expect(res.status).toBe(401);
      expect(res.body.detail).toEqual({
        error_type: 'authentication_error',
        x_code: 'unauthorized',
        message: expect.stringContaining('API key'),
        x_request_id: res.headers['x-request-id'],
      });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    const models = await svc.call('GET', '/v1/models');
    expect(models.status).toBe(401);
    expect(models.body.detail.error_type).toBe('authentication_error');
  });

  it('refuses what the key cannot pay for: 429 rate_limit_error with Retry-After, 402 billing_error; nothing taken or asked', async () => {
    const key = await start({ limits: { freePerKey: 2 } });
    const limited = await ask(key, { state: STATE, questions: { ...TWO, c: { type: 'noul' } } });
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toEqual({
      error_type: 'rate_limit_error',
      x_code: 'free_limit_reached',
      message: expect.stringMatching(/^3 questions cost 3 decisions \(1 each, from the free allowance of 2 a day, then 1 credit\)/),
      x_request_id: limited.headers['x-request-id'],
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The allowance's policy, as on every paid answer; what is left is not said: 2 may remain, short of 3.
    expect(limited.headers['ratelimit-policy']).toBe('"free";q=2;w=86400');
    expect(limited.headers.ratelimit).toBeUndefined();

    const funded = await svc.newKey(1);
    await ask(funded.key, { state: STATE, questions: TWO });
    const broke = await ask(funded.key, { state: STATE, questions: TWO });
    expect(broke.status).toBe(402);
    expect(broke.body.detail).toMatchObject({ error_type: 'billing_error', x_code: 'insufficient_credits' });
    expect(svc.fake.requests).toHaveLength(2);
    expect(await usage(funded.key)).toMatchObject({ freeUsed: 2, passCredits: 1 });
  });

  it('is busy as the format is: 429 overloaded_error with Retry-After, when the engine is', async () => {
    const key = await start();
    svc.fake.respond(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    const busy = await ask(key, { state: STATE, questions: TWO });
    expect(busy.status).toBe(429);
    expect(busy.body.detail).toMatchObject({ error_type: 'overloaded_error', x_code: 'engine_busy' });
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    expect((await usage(key)).freeUsed).toBe(0);
  });

  it('states its size limit (413 request_too_large) and its methods (405), in the format’s shape', async () => {
    const key = await start();
    const huge = await ask(key, { state: STATE, questions: TWO, padding: 'x'.repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.detail).toEqual({
      error_type: 'request_too_large',
      x_code: 'payload_too_large',
      message: 'the body is larger than 1 MiB',
      x_request_id: huge.headers['x-request-id'],
    });
    const get = await svc.call('GET', '/v1/systemone', { key });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.body.detail.error_type).toBe('invalid_request_error');
    expect((await svc.call('POST', '/v1/models', { key })).headers.allow).toBe('GET');
    const text = await svc.call('POST', '/v1/systemone', { key, raw: 'state=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.detail.x_code).toBe('unsupported_media_type');
  });

  it('names every request: X-Request-Id everywhere, and x-typesafe-request-id where the format’s SDKs read it; the access line names it too', async () => {
    const key = await start();
    const answered = await ask(key, { state: STATE, questions: TWO });
    const refused = await ask(key, { state: STATE, questions: {} });
    const elsewhere = await svc.call('GET', '/v1/usage', { key });
    // (test/support/api.ts checks the headers' form on every answer of the suite.)
    const ids = [answered, refused, elsewhere].map((r) => r.headers['x-request-id']);
    expect(new Set(ids).size).toBe(3);
    expect(answered.headers['x-typesafe-request-id']).toBe(ids[0]);
    expect(elsewhere.headers['x-typesafe-request-id']).toBeUndefined();
    const lines = svc.logs.map((l) => JSON.parse(l));
    expect(lines.map((l) => l.request)).toEqual(expect.arrayContaining(ids));
    // The rest of the API keeps its own error shape.
    expect((await svc.call('POST', '/v1/decisions', { key, json: {} })).body).toMatchObject({ code: 'invalid_request' });
  });

  it('replays an Idempotency-Key without asking or charging again; another body, or the same options in another order, is 422', async () => {
    const key = await start();
    const body = { state: STATE, questions: TWO };
    const first = await ask(key, body, { 'idempotency-key': 'retry-7' });
    expect(first.status).toBe(200);
    expect(first.headers.ratelimit).toMatch(/^"free";r=18;t=\d+$/);
    const again = await ask(key, body, { 'idempotency-key': 'retry-7' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // A replay spends nothing and says nothing of what is left now.
    expect(again.headers['ratelimit-policy']).toBe('"free";q=20;w=86400');
    expect(again.headers.ratelimit).toBeUndefined();
    expect(svc.fake.requests).toHaveLength(2);
    expect((await usage(key)).freeUsed).toBe(2);

    const other = await ask(key, { ...body, questions: { a: { type: 'noul' } } }, { 'idempotency-key': 'retry-7' });
    expect(other.status).toBe(422);
    expect(other.body.detail).toEqual([
      { loc: ['header', 'idempotency-key'], msg: expect.stringContaining('different request body'), type: 'idempotency_key_reused' },
    ]);

    const ordered = (names: string[]) => ({
      state: STATE,
      questions: { pick: { type: 'choice', criteria: Object.fromEntries(names.map((n) => [n, null])) } },
    });
    expect((await ask(key, ordered(['yes', 'no']), { 'idempotency-key': 'order-1' })).status).toBe(200);
    expect((await ask(key, ordered(['no', 'yes']), { 'idempotency-key': 'order-1' })).status).toBe(422);
  });

  it('counts a request as one api sample and logs it as /v1/decisions are, never the key', async () => {
    const key = await start();
    await ask(key, { state: STATE, questions: TWO });
    const metrics = (await svc.call('GET', '/v1/metrics')).body;
    expect(metrics.api.samples).toBe(1);
    expect(metrics.web.samples).toBe(0);
    const line = svc.logs.map((l) => JSON.parse(l)).find((l) => l.path === '/v1/systemone');
    expect(line).toMatchObject({ method: 'POST', status: 200, key: expect.stringMatching(/^dcd_api_…/) });
    expect(JSON.stringify(svc.logs)).not.toContain(key);
  });

  it('lists the model it answers with, and its bounds, to a key holder', async () => {
    const key = await start();
    const models = await svc.call('GET', '/v1/models', { key });
    expect(models.body.models).toEqual([
      {
        name: 'fake-logprobs-1',
        description: expect.stringMatching(
          /decide's openai engine: noul, choice \(2 to 255 options\) and score \(2 to 10 levels\) questions, up to 64 a request/,
        ),
        release_date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      },
    ]);
  });
});
