import { parseTrustProxy } from '../../src/config/trust-proxy.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWellFormedKey } from '../../src/contract/index.js';
import { NOUL } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { browserOf, ledgerRows } from './helpers.js';

describe('POST /v1/keys: 2 keys per IP per UTC day', () => {
  let svc: Running;
  const time = manualClock('2026-11-22T18:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock });
  });
  afterAll(() => svc.close());

  it('creates a key on the pass, shown once: it works, only its hint is listed and nothing of it is logged', async () => {
    const browser = browserOf(svc);
    await browser.verify();
    svc.logs.length = 0;
    const res = await browser.call('POST', '/v1/keys');
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { id, key, keyHint, createdAt } = res.body;
    expect(isWellFormedKey(key)).toBe(true);
    expect(keyHint).toBe(`dcd_api_…${key.slice(-4)}`);
    expect(id).toMatch(/^key_[0-9A-Za-z]{22}$/);

    const usage = await svc.call('GET', '/v1/usage', { key });
    expect(usage.status).toBe(200);
    const pass = await browser.call('GET', '/v1/pass');
    expect(pass.body.keys).toEqual([{ id, keyHint, createdAt, revokedAt: null, freeUsed: 0 }]);
    expect(pass.text).not.toContain(key);
    expect(svc.logs.join('\n')).not.toContain(key);
    expect(JSON.parse(svc.logs[0])).toMatchObject({ method: 'POST', path: '/v1/keys', status: 201, key: null });
  });

  it('a third key from one IP in a day is 429 rate_limited until the next UTC midnight, whatever the pass', async () => {
    // This suite's server sees every browser at 127.0.0.1: the first test took one key already.
    const a = browserOf(svc);
    const b = browserOf(svc);
    await a.verify();
    await b.verify();
    expect((await a.call('POST', '/v1/keys')).status).toBe(201);
    const third = await b.call('POST', '/v1/keys');
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    expect(third.body.error).toContain('2 keys');
    expect(third.headers['retry-after']).toBe(String(6 * 3600));
    expect((await a.call('POST', '/v1/keys')).status).toBe(429);
    expect((await a.call('GET', '/v1/pass')).body.keys).toHaveLength(1);
    expect((await b.call('GET', '/v1/pass')).status).toBe(401); // b's pass held nothing: it went with the refusal

    time.set('2026-11-23T00:00:01.000Z');
    expect((await b.verify()).status).toBe(201);
    expect((await b.call('POST', '/v1/keys')).status).toBe(201);
    // Only a fingerprint of the IP is stored.
    const rows = ledgerRows<{ ip: Buffer; day: string; created: number }>(
      svc,
      'SELECT ip_fingerprint AS ip, day, created FROM key_creations ORDER BY day',
    );
    expect(rows.map((r) => [r.day, r.created, r.ip.length])).toEqual([
      ['2026-11-22', 2, 32],
      ['2026-11-23', 1, 32],
    ]);
  });
});

describe('behind a trusted proxy, the limit is per client IP', () => {
  let svc: Running;
  beforeAll(async () => {
    // This server's own proxy (loopback) and one further in (10.0.0.1) are trusted.
    svc = await startWithOpenAI({ trustProxy: parseTrustProxy('127.0.0.1, 10.0.0.0/8') });
  });
  afterAll(() => svc.close());

  it('counts the first X-Forwarded-For hop from the right that is not a trusted proxy', async () => {
    const browser = browserOf(svc);
    await browser.verify();
    const from = (ip: string) => browser.call('POST', '/v1/keys', { headers: { 'x-forwarded-for': `${ip}, 10.0.0.1` } });
    expect((await from('198.51.100.1')).status).toBe(201);
    expect((await from('198.51.100.1')).status).toBe(201);
    expect((await from('198.51.100.1')).status).toBe(429);
    expect((await from('198.51.100.2')).status).toBe(201);
    // What the client wrote to the left of its own address changes nothing.
    expect((await from('192.0.2.1, 198.51.100.2')).status).toBe(201);
    expect((await from('192.0.2.2, 198.51.100.2')).status).toBe(429);
  });
});

describe('DELETE /v1/keys/{id}', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ trustProxy: true });
  });
  afterAll(() => svc.close());

  it('revokes a key of the pass: the key gets 401 from then on; again is 404', async () => {
    const browser = browserOf(svc);
    const key = await browser.newKey();
    expect((await svc.call('POST', '/v1/decisions', { key: key.key, json: NOUL })).status).toBe(200);
    const res = await browser.call('DELETE', `/v1/keys/${key.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true, keyHint: key.keyHint, revokedAt: expect.any(String) });
    expect((await svc.call('POST', '/v1/decisions', { key: key.key, json: NOUL })).status).toBe(401);
    expect((await svc.call('GET', '/v1/usage', { key: key.key })).body.code).toBe('unauthorized');
    const pass = await browser.call('GET', '/v1/pass');
    expect(pass.body.keys[0].revokedAt).toBe(res.body.revokedAt);
    expect(pass.body.keys[0].freeUsed).toBe(1);

    const again = await browser.call('DELETE', `/v1/keys/${key.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
  });

  it('another pass’s key is 404 and stays active; an unknown id is 404', async () => {
    const owner = browserOf(svc);
    const stranger = browserOf(svc);
    const key = await owner.newKey();
    await stranger.verify();
    const res = await stranger.call('DELETE', `/v1/keys/${key.id}`);
    expect(res.status).toBe(404);
    expect((await svc.call('GET', '/v1/usage', { key: key.key })).status).toBe(200);
    expect((await stranger.call('DELETE', '/v1/keys/key_nope')).status).toBe(404);
    expect((await browserOf(svc).call('DELETE', `/v1/keys/${key.id}`)).status).toBe(401); // no cookie at all
  });
});
