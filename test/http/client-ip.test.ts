import { afterEach, describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/config/trust-proxy.js';
import { clientAddress, limitKey } from '../../src/http/client-ip.js';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { browserOf } from '../web/helpers.js';

/**
 * The client IP every per-IP limit counts by. Behind a proxy that appends (nginx's
 * $proxy_add_x_forwarded_for, an ALB, Cloudflare) the left of X-Forwarded-For is what
 * the client wrote: reading it let one address take 12 of 12 passes (limit 5) and 30 of
 * 30 free decisions (limit 5). And one IPv6 /64 is one client, however many addresses
 * it picks from it.
 */
describe('the client IP behind proxies', () => {
  it('reads X-Forwarded-For from the right, past the trusted hops', () => {
    const one = parseTrustProxy('1');
    expect(clientAddress(one, '127.0.0.1', 'spoofed, 203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(parseTrustProxy('2'), '127.0.0.1', 'spoofed, 203.0.113.9, 198.51.100.2')).toBe('203.0.113.9');
    expect(clientAddress(one, '::ffff:127.0.0.1', undefined)).toBe('127.0.0.1');
    // More hops trusted than the header has: the leftmost (nothing further to skip to).
    expect(clientAddress(parseTrustProxy('3'), '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    const list = parseTrustProxy('127.0.0.1, 10.0.0.0/8, fd00::/8');
    expect(clientAddress(list, '127.0.0.1', '1.1.1.1, 203.0.113.9, 10.1.2.3, fd00::1')).toBe('203.0.113.9');
    // A peer that is not a trusted proxy is the client, whatever it says.
    expect(clientAddress(list, '203.0.113.50', '10.0.0.1')).toBe('203.0.113.50');
    expect(clientAddress(parseTrustProxy(undefined), '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(clientAddress(parseTrustProxy('0'), '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
  });

  it('refuses a setting that is neither a hop count nor addresses, naming the entry', () => {
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is neither an IP address nor a CIDR/);
    expect(() => parseTrustProxy('yes')).toThrow(/DECIDE_TRUST_PROXY: "yes"/);
    expect(() => parseTrustProxy('99')).toThrow(/hop count from 0 to 32/);
  });

  it('counts IPv6 by its /64 (or the prefix given) and IPv4-mapped addresses as IPv4', () => {
    expect(limitKey('2001:db8:1:2:aaaa::1', 64)).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8:1:2:ffff:ffff:ffff:ffff', 64)).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3::/64');
    expect(limitKey('2001:db8:1:2:aaaa::1', 48)).toBe('2001:db8:1::/48');
    expect(limitKey('2001:db8:1:2:aaaa::1', 128)).toBe('2001:db8:1:2:aaaa::1/128');
    expect(limitKey('203.0.113.9', 64)).toBe('203.0.113.9');
    expect(clientAddress(parseTrustProxy('1'), '127.0.0.1', '::ffff:203.0.113.9')).toBe('203.0.113.9');
  });
});

describe('per-IP limits through an appending proxy', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  /** What a proxy in front sends on: the client's own header, then the address it saw. */
  const through = (written: string, seen: string) => ({ 'x-forwarded-for': `${written}, ${seen}` });

  it('a client writing its own X-Forwarded-For gets 5 passes, 2 keys and 5 free decisions, not one per forged address', async () => {
    svc = await startWithOpenAI({ trustProxy: parseTrustProxy('1'), limits: { freePerIp: 5, freePerKey: 20 } });
    const running = svc;
    const statuses: number[] = [];
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) {
      const browser = browserOf(running);
      const headers = through(`10.0.0.${i}`, '203.0.113.7');
      const pass = await browser.call('POST', '/v1/pass', { headers });
      statuses.push(pass.status);
      if (pass.status !== 201) continue;
      browser.cookie = pass.headers['set-cookie']!.split(';')[0];
      const key = await browser.call('POST', '/v1/keys', { headers });
      if (key.status === 201) keys.push(key.body.key);
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(keys).toHaveLength(2);

    const own = await running.newKey();
    const decided: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await running.call('POST', '/v1/decisions', { key: own.key, json: NOUL, headers: through(`10.1.0.${i}`, '203.0.113.7') });
      decided.push(res.status);
    }
    expect(decided).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Another client behind the same proxy has its own allowance.
    expect(
      (await running.call('POST', '/v1/decisions', { key: own.key, json: NOUL, headers: through('10.1.0.0', '198.51.100.1') })).status,
    ).toBe(200);
  });

  it('eight addresses of one IPv6 /64 are one client: 5 passes, 2 keys, 3 free decisions', async () => {
    svc = await startWithOpenAI({ trustProxy: parseTrustProxy('1'), limits: { freePerIp: 3, freePerKey: 20 } });
    const running = svc;
    const passes: number[] = [];
    const keys: number[] = [];
    const decisions: number[] = [];
    const own = await running.newKey();
    for (let i = 1; i <= 8; i++) {
      const headers = { 'x-forwarded-for': `2001:db8:7:7::${i.toString(16)}` };
      const browser = browserOf(running);
      const pass = await browser.call('POST', '/v1/pass', { headers });
      passes.push(pass.status);
      if (pass.status === 201) {
        browser.cookie = pass.headers['set-cookie']!.split(';')[0];
        keys.push((await browser.call('POST', '/v1/keys', { headers })).status);
      }
      decisions.push((await running.call('POST', '/v1/decisions', { key: own.key, json: NOUL, headers })).status);
    }
    expect(passes.filter((s) => s === 201)).toHaveLength(5);
    expect(keys.filter((s) => s === 201)).toHaveLength(2);
    expect(decisions.filter((s) => s === 200)).toHaveLength(3);
    const next = await running.call('POST', '/v1/decisions', {
      key: own.key,
      json: NOUL,
      headers: { 'x-forwarded-for': '2001:db8:7:8::1' },
    });
    expect(next.status).toBe(200); // the next /64 is another client
  });
});
