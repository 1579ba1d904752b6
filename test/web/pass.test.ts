import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { listen, type RunningServer } from '../../src/server/listen.js';
import { COOKIE_MAX_AGE_S, PassCookies } from '../../src/web/cookie.js';
import { noVerification } from '../../src/web/verify/verifier.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { call } from '../support/api.js';
import { browserOf, cookieOf, passCount } from './helpers.js';

const NOON = '2026-11-22T12:00:00.000Z';

describe('POST /v1/pass and GET /v1/pass', () => {
  let svc: Running;
  const time = manualClock(NOON);
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock });
  });
  afterAll(() => svc.close());

  it('verification none: a new pass and its cookie (HttpOnly, SameSite=Strict, Path=/, not Secure over http)', async () => {
    const browser = browserOf(svc);
    const before = passCount(svc);
    const res = await browser.verify();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      passId: expect.stringMatching(/^pass_[0-9A-Za-z]{22}$/),
      passCredits: 0,
      fundedEver: false,
      keys: [],
      freeLimit: 20,
      day: '2026-11-22',
    });
    const attributes = res.headers['set-cookie'].split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(/^decide_pass=v1\.pass_[0-9A-Za-z]{22}\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(attributes.slice(1).sort()).toEqual(['HttpOnly', `Max-Age=${COOKIE_MAX_AGE_S}`, 'Path=/', 'SameSite=Strict']);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(passCount(svc)).toBe(before + 1);

    const again = await browser.call('GET', '/v1/pass');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('a browser with a valid cookie is not verified again and gets no second pass', async () => {
    const browser = browserOf(svc);
    const first = await browser.verify();
    const before = passCount(svc);
    const second = await browser.verify({ verificationToken: 'ignored' });
    expect(second.status).toBe(200);
    expect(second.body.passId).toBe(first.body.passId);
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(passCount(svc)).toBe(before);
  });

  it('the body, when there is one, follows the JSON rules', async () => {
    const browser = browserOf(svc);
    const wrongType = await browser.call('POST', '/v1/pass', {
      raw: 'token=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrongType.status).toBe(415);
    const broken = await browser.call('POST', '/v1/pass', {
      raw: '{"verificationToken":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.body.code).toBe('invalid_json');
    const unknown = await browser.call('POST', '/v1/pass', { json: { token: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'invalid_request', issues: [{ field: 'token', message: 'not allowed here' }] });
    const huge = await browser.call('POST', '/v1/pass', { json: { verificationToken: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(413);
  });

  it('GET /v1/pass without a cookie is 401 pass_missing', async () => {
    const res = await browserOf(svc).call('GET', '/v1/pass');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('pass_missing');
    expect(res.body.error).toContain('/');
    expect(res.headers['www-authenticate']).toBeUndefined(); // not a bearer route
  });

  it('a tampered cookie is no cookie: any changed character, another pass, expired, from the future', async () => {
    const browser = browserOf(svc);
    await browser.verify();
    const [name, value] = browser.cookie!.split('=');
    const [v, passId, issued, mac] = value.split('.');
    const other = (await browserOf(svc).verify()).body.passId as string;
    const cookies = new PassCookies(svc.web.cookieSecret);
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const forged = [
      `${v}.${flip(passId, 10)}.${issued}.${mac}`, // another pass id, same MAC
      `${v}.${other}.${issued}.${mac}`,
      `${v}.${passId}.${Number(issued) - 1}.${mac}`, // another issue time
      `${v}.${passId}.${issued}.${flip(mac, 5)}`,
      `${v}.${passId}.${issued}.${mac.slice(0, -1)}`,
      `v2.${passId}.${issued}.${mac}`,
      `${v}.${passId}.${issued}`,
      cookies.sign('pass_0000000000000000000000', time.clock()), // well signed, but no such pass
      cookies.sign(passId, new Date(time.clock().getTime() - (COOKIE_MAX_AGE_S + 60) * 1000)), // older than its lifetime
      cookies.sign(passId, new Date(time.clock().getTime() + 3_600_000)), // from the future
      '',
    ];
    for (const candidate of forged) {
      const res = await browserOf(svc).call('GET', '/v1/pass', { headers: { cookie: `${name}=${candidate}` } });
      expect(res.status, candidate).toBe(401);
      expect(res.body.code).toBe('pass_missing');
    }
    // The untouched cookie still works; the secure name over http does not count.
    expect((await browser.call('GET', '/v1/pass')).status).toBe(200);
    const hostPrefixed = await browserOf(svc).call('GET', '/v1/pass', { headers: { cookie: `__Host-decide_pass=${value}` } });
    expect(hostPrefixed.status).toBe(401);
  });

  it('a cookie is re-issued once a day old, so an active browser keeps its pass', async () => {
    const browser = browserOf(svc);
    await browser.verify();
    const fresh = await browser.call('GET', '/v1/pass');
    expect(fresh.headers['set-cookie']).toBeUndefined();
    time.advance(25 * 3600 * 1000);
    try {
      const later = await browser.call('GET', '/v1/pass');
      expect(later.status).toBe(200);
      const renewed = cookieOf(later.headers['set-cookie']);
      expect(renewed).not.toBe(browser.cookie);
      expect(renewed.split('.')[1]).toBe(browser.cookie!.split('.')[1]); // the same pass
    } finally {
      time.set(NOON);
    }
  });
});

describe('a cookie signed with another server secret', () => {
  let svc: Running;
  let twin: RunningServer;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    // A second server on the same ledger, with a secret of its own.
    const app = createApp({
      service: svc.service,
      log: () => {},
      web: { store: svc.store, verifier: noVerification, cookieSecret: 'another-secret-of-at-least-32-characters!' },
    });
    twin = await listen(app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await twin.close();
    await svc.close();
  });

  it('is refused with 401 pass_missing, though its pass exists', async () => {
    const browser = browserOf(svc);
    await browser.verify();
    const there = await call(twin.url, 'GET', '/v1/pass', { headers: { cookie: browser.cookie! } });
    expect(there.status).toBe(401);
    expect(there.body.code).toBe('pass_missing');
    const keys = await call(twin.url, 'POST', '/v1/keys', { headers: { cookie: browser.cookie!, origin: twin.url } });
    expect(keys.status).toBe(401);
    expect((await browser.call('GET', '/v1/pass')).status).toBe(200);
  });
});

describe('same origin only', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('a cross-origin POST /v1/keys is 403 forbidden_origin, and creates nothing', async () => {
    const own = browserOf(svc);
    await own.verify();
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:1', svc.url.replace('http:', 'https:')]) {
      const res = await svc.call('POST', '/v1/keys', { headers: { origin, cookie: own.cookie! } });
      expect(res.status, origin).toBe(403);
      expect(res.body.code).toBe('forbidden_origin');
      expect(res.body.error).toContain(svc.url);
    }
    const noOrigin = await svc.call('POST', '/v1/keys', { headers: { cookie: own.cookie! } });
    expect(noOrigin.status).toBe(403);
    expect((await own.call('GET', '/v1/pass')).body.keys).toEqual([]);
  });

  it('every cookie route refuses a foreign Origin; a GET without one is fine', async () => {
    const own = browserOf(svc);
    await own.verify();
    const key = await own.newKey();
    const evil = { origin: 'https://evil.example', cookie: own.cookie! };
    for (const [method, path] of [
      ['POST', '/v1/pass'],
      ['GET', '/v1/pass'],
      ['POST', '/v1/keys'],
      ['DELETE', `/v1/keys/${key.id}`],
      ['POST', '/v1/web/decisions'],
    ]) {
      const res = await svc.call(method, path, { headers: evil, json: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await svc.call('GET', '/v1/pass', { headers: { cookie: own.cookie! } })).status).toBe(200);
  });

  it('the check order: method (405), then Origin (403), then the cookie (401), then the body', async () => {
    expect((await svc.call('PUT', '/v1/keys', { headers: { origin: 'http://evil.example' } })).status).toBe(405);
    expect((await svc.call('GET', '/v1/keys/key_x', { headers: { origin: 'http://evil.example' } })).headers.allow).toBe('DELETE, PATCH');
    const noCookie = browserOf(svc);
    expect((await noCookie.call('POST', '/v1/web/decisions', { raw: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(401);
    expect((await svc.call('POST', '/v1/web/decisions', { raw: 'x', headers: { origin: 'http://evil.example' } })).status).toBe(403);
  });
});
