import { afterEach, describe, expect, it } from 'vitest';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/**
 * DNS rebinding: a page on evil.example whose name resolves to 127.0.0.1 is same-origin
 * with a loopback server, so without a Host check it made a pass and a key (and read
 * the key) and decisions; only /mcp checked. Every route now does.
 */
describe('Host on every route of a loopback server', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('refuses another name with 403 forbidden_origin before anything is made, and answers its own names', async () => {
    svc = await startWithOpenAI();
    const running = svc;
    const port = new URL(running.url).port;
    const evil = { host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
    const key = await running.newKey();
    for (const [method, path, options] of [
      ['POST', '/v1/pass', {}],
      ['POST', '/v1/keys', {}],
      ['POST', '/v1/decisions', { key: key.key, json: NOUL }],
      ['GET', '/v1/usage', { key: key.key }],
      ['GET', '/', {}],
      ['GET', '/openapi.json', {}],
    ] as const) {
      const res = await running.call(method, path, { ...options, headers: evil });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(res.text)).toMatchObject({
        code: 'forbidden_origin',
        error: expect.stringContaining(`Host "evil.example:${port}" is not allowed`),
      });
    }
    expect((await running.call('GET', '/v1/usage', { key: key.key })).body).toMatchObject({ freeUsed: 0 });
    expect(running.fake.requests).toHaveLength(0);

    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await running.call('GET', '/v1/usage', { key: key.key, headers: { host } })).status).toBe(200);
    }
  });

  it('answers the name DECIDE_PUBLIC_URL gives', async () => {
    svc = await startWithOpenAI({ publicUrl: 'https://decide.example.com' });
    const key = await svc.newKey();
    expect((await svc.call('GET', '/v1/usage', { key: key.key, headers: { host: 'decide.example.com' } })).status).toBe(200);
    expect((await svc.call('GET', '/v1/usage', { key: key.key, headers: { host: 'evil.example' } })).status).toBe(403);
  });
});
