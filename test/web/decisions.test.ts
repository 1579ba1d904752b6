import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { browserOf } from './helpers.js';

describe('POST /v1/web/decisions', () => {
  let svc: Running;
  beforeAll(async () => {
    // A small free allowance, to reach the credits quickly; every browser its own IP.
    svc = await startWithOpenAI({ limits: { freePerKey: 2 }, trustProxy: true });
  });
  afterAll(() => svc.close());
  let ip = 0;
  /** A verified browser with one key, seen from an IP of its own. */
  async function withKey() {
    const browser = browserOf(svc);
    const forwarded = { 'x-forwarded-for': `198.51.100.${++ip}` };
    const call = browser.call;
    browser.call = (method, path, options = {}) => call(method, path, { ...options, headers: { ...forwarded, ...options.headers } });
    return { browser, key: await browser.newKey() };
  }

  it('decides with one of the pass’s keys, as `web` in the metrics', async () => {
    const { browser, key } = await withKey();
    const before = (await svc.call('GET', '/v1/metrics')).body;
    svc.logs.length = 0;
    for (const request of [CHOICE, NOUL, SCORE]) {
      const res = await browser.call('POST', '/v1/web/decisions', { json: { ...request, keyId: key.id } });
      if (request === SCORE) {
        expect(res.status).toBe(429); // the free allowance of 2 is spent and the pass was never funded
        expect(res.body.code).toBe('free_limit_reached');
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.body.mode).toBe(request.mode);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const after = (await svc.call('GET', '/v1/metrics')).body;
    expect(after.web.samples).toBe(before.web.samples + 2);
    expect(after.api.samples).toBe(before.api.samples);
    // The access log names the paying key by its hint.
    expect(JSON.parse(svc.logs[0])).toMatchObject({ path: '/v1/web/decisions', status: 200, key: key.keyHint });
  });

  it("spends the key's free allowance, then the pass's credits", async () => {
    const { browser, key } = await withKey();
    const decide = (depth = 'standard') => browser.call('POST', '/v1/web/decisions', { json: { ...NOUL, depth, keyId: key.id } });
    expect((await decide()).body.access).toEqual({ type: 'free', freeRemaining: 1 });
    expect((await decide('stress')).body.code).toBe('pass_required');
    expect((await decide()).body.access).toEqual({ type: 'free', freeRemaining: 0 });
    const passId = (await browser.call('GET', '/v1/pass')).body.passId;
    await svc.store.passes.fund(passId, 6, new Date(), 'test');
    expect((await decide()).body.access).toEqual({ type: 'pass', passCredits: 5 });
    expect((await decide('stress')).body.access).toEqual({ type: 'pass', passCredits: 0 });
    const broke = await decide();
    expect(broke.status).toBe(402);
    expect(broke.body.code).toBe('insufficient_credits');
    // The same key over the API sees the same allowance and balance.
    const usage = await svc.call('GET', '/v1/usage', { key: key.key });
    expect(usage.body).toMatchObject({ freeUsed: 2, passCredits: 0 });
    expect((await browser.call('GET', '/v1/pass')).body.keys[0].freeUsed).toBe(2);
  });

  it('keyId must name an active key of this pass (400 naming keyId)', async () => {
    const { browser, key } = await withKey();
    const other = await withKey();
    const refused = async (keyId: unknown) => {
      const res = await browser.call('POST', '/v1/web/decisions', { json: { ...NOUL, keyId } });
      expect(res.status, String(keyId)).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.issues.map((i: { field: string }) => i.field)).toEqual(['keyId']);
      expect(res.body.error).toMatch(/^keyId: /);
    };
    await refused(other.key.id);
    await refused('key_0000000000000000000000');
    await refused('nonsense');
    await refused(undefined);
    await browser.call('DELETE', `/v1/keys/${key.id}`);
    await refused(key.id);
  });

  it('invalid requests name every field, in `error` and in `issues`', async () => {
    const { browser, key } = await withKey();
    const res = await browser.call('POST', '/v1/web/decisions', {
      json: { mode: 'choice', question: 'Short', context: 'Too short.', options: ['Yes', 'yes'], keyId: key.id, extra: 1 },
    });
    expect(res.status).toBe(400);
    const fields = res.body.issues.map((i: { field: string }) => i.field).sort();
    expect(fields).toEqual(['context', 'extra', 'options.1', 'question']);
    for (const issue of res.body.issues.slice(0, 3)) expect(res.body.error).toContain(`${issue.field}: ${issue.message}`);
    // The same contract on /v1/decisions carries the same issues.
    const api = await svc.call('POST', '/v1/decisions', { key: key.key, json: { ...NOUL, question: 'Short' } });
    expect(api.body.issues).toEqual([{ field: 'question', message: 'must be 8 to 300 characters long (got 5)' }]);
  });

  it('body rules first: 415, 400 invalid_json, 413; after the cookie (401)', async () => {
    const { browser } = await withKey();
    const post = (raw: string, type = 'application/json') =>
      browser.call('POST', '/v1/web/decisions', { raw, headers: { 'content-type': type } });
    expect((await post('{}', 'text/plain')).body.code).toBe('unsupported_media_type');
    expect((await post('{')).body.code).toBe('invalid_json');
    expect((await post(JSON.stringify({ ...NOUL, context: 'x'.repeat(70_000) }))).status).toBe(413);
    const anonymous = await browserOf(svc).call('POST', '/v1/web/decisions', { raw: '{', headers: { 'content-type': 'application/json' } });
    expect(anonymous.body.code).toBe('pass_missing');
  });

  it('an engine failure costs nothing', async () => {
    const { browser, key } = await withKey();
    svc.fake.respond(() => ({ status: 500 }));
    try {
      const res = await browser.call('POST', '/v1/web/decisions', { json: { ...NOUL, keyId: key.id } });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('engine_unavailable');
    } finally {
      svc.fake.respond();
    }
    expect((await browser.call('GET', '/v1/pass')).body.keys[0].freeUsed).toBe(0);
  });
});
