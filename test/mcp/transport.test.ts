import { Hono } from 'hono';
import type { AppEnv } from '../../src/http/env.js';
import { requestContext } from '../../src/http/request-context.js';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebindingRefusal } from '../../src/mcp/origin.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { initialize, rpc } from './clients.js';

/** What the route checks before the SDK sees a request. */
describe('POST /mcp at the HTTP level', () => {
  let svc: Running;
  let port: string;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    port = new URL(svc.url).port;
  });
  afterAll(() => svc.close());

  it.each(['GET', 'DELETE', 'PUT'])('%s /mcp → 405 with Allow: POST and a JSON-RPC error body', async (method) => {
    const res = await rpc(svc.url, undefined, { method, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'method_not_allowed' } } });
  });

  it('accepts an Origin that is the server’s own, and refuses any other with 403', async () => {
    const own = await rpc(svc.url, initialize('2025-11-25'), { headers: { origin: svc.url } });
    expect(own.status).toBe(200);
    for (const origin of ['http://evil.example.com', `http://localhost:${port}`, `https://127.0.0.1:${port}`, 'null', 'not a url']) {
      const res = await rpc(svc.url, initialize('2025-11-25'), { headers: { origin } });
      expect(res.status, origin).toBe(403);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      expect(res.body.error.message).toMatch(/^Forbidden: Origin/);
    }
  });

  it('refuses a foreign Host on the loopback (DNS rebinding), even with a matching Origin', async () => {
    const headers = { host: `evil.example.com:${port}`, origin: `http://evil.example.com:${port}` };
    const res = await rpc(svc.url, initialize('2025-11-25'), { headers });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/^Forbidden: Host "evil\.example\.com:\d+" is not allowed/);
    const local = await rpc(svc.url, initialize('2025-11-25'), {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(local.status).toBe(200);
  });

  it('limits the body to 64 KiB like /v1 (413), declared or streamed', async () => {
    const big = JSON.stringify({ ...initialize('2025-11-25'), padding: 'x'.repeat(70 * 1024) });
    const res = await rpc(svc.url, undefined, { raw: big });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'payload_too_large' } } });

    // Chunked, with no Content-Length: counted as the bytes arrive.
    const chunks = Readable.from([big.slice(0, 40_000), big.slice(40_000)]);
    const streamed = await request(new URL('/mcp', svc.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: chunks,
    });
    expect(streamed.statusCode).toBe(413);
    expect(((await streamed.body.json()) as any).error.data.code).toBe('payload_too_large');
  });

  it('refuses another media type (415) and malformed JSON (400, parse error)', async () => {
    const text = await rpc(svc.url, undefined, { raw: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.error.data).toEqual({
      error: 'Content-Type must be application/json, not text/plain',
      code: 'unsupported_media_type',
      requestId: text.headers['x-request-id'],
    });
    const broken = await rpc(svc.url, undefined, { raw: '{"jsonrpc":"2.0",' });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, data: { code: 'invalid_json' } } });
  });

  it('bad initialize params: 400, -32602 and one sentence naming the fields, not -32603 with the raw issues', async () => {
    const clientInfo = { name: 'raw-test', version: '1.0.0' };
    const cases: Array<[Record<string, unknown> | undefined, string]> = [
      [{ capabilities: {}, clientInfo }, 'params.protocolVersion: expected string, received undefined'],
      [{ protocolVersion: 20251125, capabilities: {}, clientInfo }, 'params.protocolVersion: expected string, received number'],
      [
        { protocolVersion: '2025-11-25', capabilities: [], clientInfo: { name: 7 } },
        'params.capabilities: expected object, received array; params.clientInfo.name: expected string, received number; ' +
          'params.clientInfo.version: expected string, received undefined',
      ],
      [undefined, 'params: expected object, received undefined'],
    ];
    for (const [params, problems] of cases) {
      const res = await rpc(svc.url, { jsonrpc: '2.0', id: 'init-1', method: 'initialize', ...(params ? { params } : {}) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 'init-1',
        error: { code: -32602, message: `Invalid params for initialize: ${problems}` },
      });
    }
    expect((await rpc(svc.url, initialize('2025-11-25'))).body.result.protocolVersion).toBe('2025-11-25');
  });

  it('a 2025-03-26 batch holding a tools/call needs the key too', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
    ];
    const res = await rpc(svc.url, batch, { headers: { 'mcp-protocol-version': '2025-03-26' } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });
});

describe('the Host and Origin rules', () => {
  const app = (trustProxy: boolean, publicUrl: string | null) =>
    new Hono<AppEnv>().use(requestContext({ trustProxy, publicUrl })).all('*', (c) => c.json({ refused: rebindingRefusal(c, trustProxy) }));
  const check = async (headers: Record<string, string>, local = '127.0.0.1', trustProxy = false, publicUrl: string | null = null) => {
    const env = { incoming: { socket: { localAddress: local } } };
    // As the Node adapter does, the request's URL is built from its Host header.
    const res = await app(trustProxy, publicUrl).request(`http://${headers.host}/mcp`, { method: 'POST', headers }, env);
    return ((await res.json()) as { refused: string | null }).refused;
  };

  it('on the loopback only loopback names are served', async () => {
    expect(await check({ host: 'localhost:8787' })).toBeNull();
    expect(await check({ host: '127.0.0.1:8787' })).toBeNull();
    expect(await check({ host: '[::1]:8787' }, '::1')).toBeNull();
    expect(await check({ host: 'decide.example.com' })).toMatch(/not allowed/);
    expect(await check({ host: 'decide.example.com' }, '::ffff:127.0.0.1')).toMatch(/not allowed/);
  });

  it('elsewhere any Host is served, and the Origin must match it', async () => {
    expect(await check({ host: 'decide.example.com' }, '10.0.0.5')).toBeNull();
    expect(await check({ host: 'decide.example.com', origin: 'http://decide.example.com' }, '10.0.0.5')).toBeNull();
    expect(await check({ host: 'decide.example.com:80', origin: 'http://decide.example.com' }, '10.0.0.5')).toBeNull();
    expect(await check({ host: 'decide.example.com', origin: 'https://decide.example.com' }, '10.0.0.5')).toMatch(
      /not this server's origin/,
    );
  });

  it('with DECIDE_PUBLIC_URL the Origin must be the public one, as on the pages', async () => {
    const PUBLIC = 'https://decide.example.com';
    expect(await check({ host: 'decide.example.com', origin: PUBLIC }, '10.0.0.5', false, PUBLIC)).toBeNull();
    expect(await check({ host: 'decide.example.com', origin: 'http://decide.example.com' }, '10.0.0.5', false, PUBLIC)).toMatch(
      /not this server's origin \(https:\/\/decide\.example\.com\)/,
    );
  });

  it('behind a trusted proxy the forwarded scheme and host are the origin', async () => {
    const headers = {
      host: '127.0.0.1:8787',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'decide.example.com',
      origin: 'https://decide.example.com',
    };
    expect(await check(headers, '127.0.0.1', true)).toBeNull();
    expect(await check({ ...headers, origin: 'https://evil.example.com' }, '127.0.0.1', true)).toMatch(/not this server's origin/);
    // Without trust, the same request is a foreign name on the loopback.
    expect(await check({ ...headers, host: 'decide.example.com' }, '127.0.0.1', false)).toMatch(/not allowed/);
  });
});
