import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/contract/index.js';
import type { ApiAnswer } from '../support/api.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { eventually, gate } from '../support/time.js';

describe('usage, revocation and metrics', () => {
  let svc: Running;
  const time = manualClock('2026-11-22T12:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock });
  });
  afterAll(() => svc.close());

  it('GET /v1/usage reports the day, the allowance and the pass balance, with RateLimit headers', async () => {
    const { key } = await svc.newKey(40);
    await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    const res = await svc.call('GET', '/v1/usage', { key });
    expect(res.body).toEqual({
      day: '2026-11-22',
      freeLimit: 20,
      freeUsed: 1,
      freeRemaining: 19,
      passCredits: 40,
      resetsAt: '2026-11-23T00:00:00.000Z',
    });
    expect(res.headers.ratelimit).toBe(`"free";r=19;t=${12 * 3600}`);
  });

  it('DELETE /v1/key revokes the key used, and only that key', async () => {
    const first = await svc.newKey(3);
    const second = await svc.store.keys.create(new Date(), first.passId);
    const res = await svc.call('DELETE', '/v1/key', { key: first.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true, keyHint: first.keyHint, revokedAt: '2026-11-22T12:00:00.000Z' });
    expect(res.body.keyHint).toMatch(/^dcd_api_…[0-9A-Za-z]{4}$/);
    expect(first.key.endsWith(res.body.keyHint.slice(-4))).toBe(true);

    expect((await svc.call('GET', '/v1/usage', { key: first.key })).status).toBe(401);
    expect((await svc.call('POST', '/v1/decisions', { key: first.key, json: NOUL })).status).toBe(401);
    expect((await svc.call('DELETE', '/v1/key', { key: first.key })).status).toBe(401);
    const other = await svc.call('GET', '/v1/usage', { key: second.key });
    expect(other.status).toBe(200);
    expect(other.body.passCredits).toBe(3);
  });

  it('GET /v1/metrics is public and counts only successful decisions, as api', async () => {
    time.set('2026-11-24T09:00:00.000Z');
    const empty = await svc.call('GET', '/v1/metrics');
    expect(empty.body).toEqual({
      day: '2026-11-24',
      overall: { samples: 0, meanMs: null, uncharged: 0 },
      web: { samples: 0, meanMs: null, uncharged: 0 },
      api: { samples: 0, meanMs: null, uncharged: 0 },
    });

    const { key } = await svc.newKey();
    svc.fake.respond(() => ({ status: 500 }));
    expect((await svc.call('POST', '/v1/decisions', { key, json: CHOICE })).status).toBe(503);

    // processingMs covers the engine's time: `slow` waits at the engine while `quick`
    // is asked and answered, so slow's time holds quick's whole time and more.
    const engine = gate();
    const SLOW = { ...CHOICE, question: 'Which database should the other team adopt for its service?' };
    svc.fake.respond((body) => (JSON.stringify(body).includes(SLOW.question) ? { until: engine.promise } : {}));
    const pending = svc.call('POST', '/v1/decisions', { key, json: SLOW });
    let quick!: ApiAnswer, slow!: ApiAnswer;
    try {
      await eventually(
        () => svc.fake.requests.some((r) => JSON.stringify(r.body).includes(SLOW.question)),
        'the slow decision at the engine',
      );
      quick = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
      expect(quick.body.timing.samplesToday).toBe(1);
      expect(quick.body.timing.averageMsToday).toBe(quick.body.timing.processingMs);
      await new Promise((resolve) => setTimeout(resolve, 5)); // a few ms more, past the rounding to whole ms
      engine.open();
      slow = await pending;
      expect(slow.status).toBe(200);
      expect(slow.body.timing.processingMs).toBeGreaterThan(quick.body.timing.processingMs);
      expect(slow.body.timing.samplesToday).toBe(2);
    } finally {
      engine.open();
    }

    const metrics = await svc.call('GET', '/v1/metrics');
    const mean = Math.round((quick.body.timing.processingMs + slow.body.timing.processingMs) / 2);
    expect(metrics.body.api.samples).toBe(2);
    expect(Math.abs(metrics.body.api.meanMs - mean)).toBeLessThanOrEqual(1);
    expect(metrics.body.overall).toEqual(metrics.body.api);
    expect(metrics.body.web).toEqual({ samples: 0, meanMs: null, uncharged: 0 });
    expect(slow.body.timing.averageMsToday).toBe(metrics.body.api.meanMs);
  });

  it('logs one line a request, with the key hint and never the key or the body', async () => {
    const { key, keyHint } = await svc.newKey();
    svc.logs.length = 0;
    svc.fake.respond();
    await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    await svc.call('GET', '/v1/nope');
    expect(svc.logs).toHaveLength(2);
    const [decision, missing] = svc.logs.map((line) => JSON.parse(line));
    expect(decision).toMatchObject({ method: 'POST', path: '/v1/decisions', status: 200, key: keyHint });
    expect(typeof decision.ms).toBe('number');
    expect(missing).toMatchObject({ method: 'GET', path: '/v1/nope', status: 404, key: null });
    const all = svc.logs.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain('PostgreSQL');
  });
});

describe('GET /openapi.json', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('describes every route from the contract schemas', async () => {
    const res = await svc.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/v1/decisions',
        '/v1/key',
        '/v1/keys',
        '/v1/keys/{id}',
        '/v1/metrics',
        '/v1/models',
        '/v1/pass',
        '/v1/systemone',
        '/v1/usage',
        '/v1/web/decisions',
        '/v1/admin/keys',
        '/v1/admin/keys/{ref}',
        '/v1/admin/passes',
        '/v1/admin/passes/{id}',
        '/healthz',
        '/readyz',
      ].sort(),
    );
    expect(Object.keys(doc.paths['/v1/decisions'])).toEqual(['post']);
    const post = doc.paths['/v1/decisions'].post;
    expect(Object.keys(post.responses).sort()).toEqual(
      ['200', '400', '401', '402', '409', '413', '415', '422', '429', '502', '503', '504'].sort(),
    );
    const schemas = doc.components.schemas;
    const choice = schemas.DecisionRequest.oneOf.find((s: any) => s.properties.mode.const === 'choice');
    expect(choice.properties.question).toMatchObject({ type: 'string', minLength: 8, maxLength: 300 });
    expect(choice.properties.context).toMatchObject({ minLength: 20, maxLength: 2000 });
    expect(choice.properties.options).toMatchObject({ minItems: 2, maxItems: 6 });
    expect(choice.additionalProperties).toBe(false);
    expect(schemas.Error.properties.code.enum.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    // One object per mode, its result that mode's.
    expect(schemas.DecisionResponse.oneOf.map((s: any) => s.$ref)).toEqual(
      ['ChoiceResponse', 'NoulResponse', 'ScoreResponse'].map((id) => `#/components/schemas/${id}`),
    );
    for (const [id, mode, result] of [
      ['ChoiceResponse', 'choice', 'selected'],
      ['NoulResponse', 'noul', 'yesProbability'],
      ['ScoreResponse', 'score', 'score'],
    ]) {
      expect(schemas[id].required).toEqual(
        expect.arrayContaining(['mode', 'question', 'result', 'signal', 'contextSufficiency', 'model', 'evaluatedAt', 'access', 'timing']),
      );
      expect(schemas[id].properties.mode.const).toBe(mode);
      expect(schemas[id].properties.result.required).toContain(result);
    }
    // Every operation named and its security stated: none needed where it says [].
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/metrics'].get.security).toEqual([]);
    expect(doc.paths['/v1/pass'].post.security).toEqual([]);
    expect(doc.paths['/v1/usage'].get.security).toEqual([{ bearer: [] }]);
    const operations = Object.values<any>(doc.paths).flatMap((path) => Object.values<any>(path));
    for (const operation of operations) expect(operation.security, operation.summary).toBeDefined();
    const ids = operations.map((o) => o.operationId);
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });
});
