import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { browserOf, ledgerRows, passCount } from './helpers.js';

/**
 * Where verification is `none` nothing else stops a script from making passes: one
 * IP makes at most 5 a UTC day. And a key refused by the IP's limit leaves no empty
 * pass behind.
 */
describe('POST /v1/pass: 5 new passes per IP per UTC day', () => {
  let svc: Running;
  const time = manualClock('2026-11-22T18:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock, trustProxy: true });
  });
  afterAll(() => svc.close());

  const from = (ip: string) => {
    const browser = browserOf(svc);
    return { browser, verify: () => browser.call('POST', '/v1/pass', { headers: { 'x-forwarded-for': ip } }) };
  };

  it('the sixth browser of an IP is 429 rate_limited until the next UTC midnight: no pass, no cookie', async () => {
    for (let i = 0; i < 5; i++) expect((await from('203.0.113.7').verify()).status).toBe(201);
    const before = passCount(svc);
    const sixth = await from('203.0.113.7').verify();
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('rate_limited');
    expect(sixth.body.error).toContain('5 browsers');
    expect(sixth.headers['retry-after']).toBe(String(6 * 3600));
    expect(sixth.headers['set-cookie']).toBeUndefined();
    expect(passCount(svc)).toBe(before);

    expect((await from('198.51.100.9').verify()).status).toBe(201); // another network
    time.set('2026-11-23T00:00:01.000Z');
    expect((await from('203.0.113.7').verify()).status).toBe(201); // the next day
    const rows = ledgerRows<{ day: string; created: number }>(svc, 'SELECT day, created FROM pass_creations ORDER BY day, created');
    expect(rows).toEqual([
      { day: '2026-11-22', created: 1 },
      { day: '2026-11-22', created: 5 },
      { day: '2026-11-23', created: 1 },
    ]);
  });

  it('a browser that holds a pass is not counted again', async () => {
    const counted = () => ledgerRows<{ n: number }>(svc, 'SELECT sum(created) AS n FROM pass_creations')[0].n;
    const { browser, verify } = from('192.0.2.44');
    const before = counted();
    const first = await verify();
    expect(first.status).toBe(201);
    browser.cookie = first.headers['set-cookie'].split(';')[0];
    for (let i = 0; i < 6; i++) expect((await verify()).status).toBe(200);
    expect(counted()).toBe(before + 1);
  });
});

describe('POST /v1/keys refused: no empty pass left behind', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it("the IP's third key of the day: a new browser's empty pass is removed and its cookie cleared; a pass with keys stays", async () => {
    const first = browserOf(svc);
    await first.newKey();
    await first.newKey(); // this IP's two keys of the day
    const late = browserOf(svc);
    expect((await late.verify()).status).toBe(201);
    const passes = passCount(svc);

    const refused = await late.call('POST', '/v1/keys');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(passCount(svc)).toBe(passes - 1);
    expect(refused.headers['set-cookie']).toMatch(/^decide_pass=;.*Max-Age=0/);
    expect((await late.call('GET', '/v1/pass')).status).toBe(401); // its cookie names nothing now

    const again = await first.call('POST', '/v1/keys');
    expect(again.status).toBe(429);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await first.call('GET', '/v1/pass')).body.keys).toHaveLength(2);
  });
});
