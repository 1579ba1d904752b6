import { afterEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { gate } from '../support/time.js';

let svc: Running;
afterEach(async () => {
  try {
    expect(audit(svc.dir)).toEqual([]);
  } finally {
    await svc.close();
  }
});

const withKey = (value: string) => ({ 'idempotency-key': value });

describe('Idempotency-Key', () => {
  it('replays the first answer byte for byte, without a new charge or engine call', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    const first = await svc.call('POST', '/v1/decisions', { key, json: CHOICE, headers: withKey('order-42') });
    const calls = svc.fake.requests.length;
    const again = await svc.call('POST', '/v1/decisions', { key, json: CHOICE, headers: withKey('order-42') });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The first answer said what was left then; a replay spends nothing and does not repeat it as now.
    expect(first.headers.ratelimit).toMatch(/^"free";r=19;t=\d+$/);
    expect(again.headers['ratelimit-policy']).toBe('"free";q=20;w=86400');
    expect(again.headers.ratelimit).toBeUndefined();
    expect(svc.fake.requests.length).toBe(calls);
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(1);
  });

  it('422 idempotency_key_reused for the same header with another body', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    await svc.call('POST', '/v1/decisions', { key, json: CHOICE, headers: withKey('k1') });
    const reused = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('k1') });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(reused.body.error).toContain('Idempotency-Key');
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(1);
  });

  it('409 idempotency_in_progress while the first is still running, then a replay', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    // The first decision stays at the engine until the second has been answered.
    const engine = gate();
    svc.fake.respond(() => ({ until: engine.promise }));
    const first = svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('slow') });
    first.catch(() => {}); // awaited below; no unhandled rejection should a check fail first
    try {
      while (svc.fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      const second = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('slow') });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('idempotency_in_progress');
    } finally {
      engine.open();
    }
    expect((await first).status).toBe(200);
    const third = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('slow') });
    expect(third.text).toBe((await first).text);
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(1);
  });

  it('stores only successes: a retry after an engine failure runs again', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    svc.fake.respond(() => ({ status: 500 }));
    const failed = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('retry-me') });
    expect(failed.status).toBe(503);
    svc.fake.respond();
    const retried = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: withKey('retry-me') });
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(1);
  });

  it('is scoped to the API key, and forgets after 24 hours', async () => {
    const time = manualClock('2026-11-22T08:00:00.000Z');
    svc = await startWithOpenAI({ clock: time.clock });
    const a = await svc.newKey();
    const b = await svc.newKey();
    await svc.call('POST', '/v1/decisions', { key: a.key, json: NOUL, headers: withKey('same') });
    const other = await svc.call('POST', '/v1/decisions', { key: b.key, json: CHOICE, headers: withKey('same') });
    expect(other.status).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();

    time.advance(24 * 3600_000 - 1000);
    const replay = await svc.call('POST', '/v1/decisions', { key: a.key, json: NOUL, headers: withKey('same') });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    time.advance(2000);
    const fresh = await svc.call('POST', '/v1/decisions', { key: a.key, json: NOUL, headers: withKey('same') });
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect((await svc.call('GET', '/v1/usage', { key: a.key })).body).toMatchObject({ day: '2026-11-23', freeUsed: 1 });
  });
});
