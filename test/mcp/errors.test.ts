import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { CHOICE, NOUL, SCORE, withKey } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { initialize, legacyClient, lineOf, modernClient, modernRequest, rpc } from './clients.js';

const UNAUTHORIZED = 'the API key is missing, unknown or revoked; send Authorization: Bearer <key>';

describe('MCP authentication', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('initialize, tools/list and ping need no key', async () => {
    const init = await rpc(svc.url, initialize('2025-11-25'));
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe('decide');
    const headers = { 'mcp-protocol-version': '2025-11-25' };
    const list = await rpc(svc.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { headers });
    expect(list.body.result.tools).toHaveLength(3);
    const ping = await rpc(svc.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { headers });
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 3, result: {} });

    const modern = modernRequest('tools/list');
    const modernList = await rpc(svc.url, modern.message, { headers: modern.headers });
    expect(modernList.status).toBe(200);
    expect(modernList.body.result.tools).toHaveLength(3);
  });

  const badKeys: Array<[string, string | undefined]> = [
    ['no key', undefined],
    ['a malformed key', 'not-a-key'],
    ['an unknown key', 'dcd_api_0000000000000000000000000000000000000000000000000'],
  ];

  it.each(badKeys)('tools/call with %s: 401, a JSON-RPC error body and WWW-Authenticate: Bearer', async (_, key) => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_usage', arguments: {} } };
    for (const headers of [{ 'mcp-protocol-version': '2025-11-25' }, undefined]) {
      const res = await rpc(svc.url, call, { key, headers });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32001,
          message: UNAUTHORIZED,
          data: { error: UNAUTHORIZED, code: 'unauthorized', requestId: res.headers['x-request-id'] },
        },
      });
    }
    const modern = modernRequest('tools/call', { name: 'weigh_decision', arguments: { ...NOUL } });
    const res = await rpc(svc.url, modern.message, { key, headers: modern.headers });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe(-32001);
  });

  it('a revoked key is refused like an unknown one, and nothing reaches the engine', async () => {
    const { key } = await svc.newKey(10);
    expect((await svc.call('DELETE', '/v1/key', { key })).status).toBe(200);
    const before = svc.fake.requests.length;
    const client = await modernClient(svc.url, key);
    try {
      await expect(client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } })).rejects.toMatchObject({ data: { status: 401 } });
      // Listing still works: it needs no key.
      expect((await client.listTools()).tools).toHaveLength(3);
    } finally {
      await client.close();
    }
    const legacy = await legacyClient(svc.url, key);
    try {
      await expect(legacy.callTool({ name: 'get_usage', arguments: {} })).rejects.toMatchObject({ code: 401 });
    } finally {
      await legacy.close();
    }
    expect(svc.fake.requests.length).toBe(before);
  });
});

describe('MCP tool errors: isError results with the contract sentence and code, nothing charged', () => {
  let svc: Running;
  /** A service whose decision deadline is short enough to see it fire: only for engines that hang. */
  let hanging: Running;
  let client: Client | undefined;
  const time = manualClock('2026-11-22T12:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock, limits: { freePerKey: 2 } });
    hanging = await startWithOpenAI({ clock: time.clock, limits: { freePerKey: 2 }, engineTimeoutMs: 600 });
  });
  afterAll(async () => {
    await svc.close();
    await hanging.close();
  });
  beforeEach(() => {
    svc.fake.reset();
    hanging.fake.reset();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  const connect = async (key: string, to: Running = svc) => (client = await modernClient(to.url, key));
  const usageOf = async (key: string) => (await svc.call('GET', '/v1/usage', { key })).body;

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['a short question', { ...CHOICE, question: 'Which?' }],
    ['one option', { ...CHOICE, options: ['PostgreSQL'] }],
    ['repeated options', { ...CHOICE, options: ['PostgreSQL', 'postgresql '] }],
    ['options with noul', { ...NOUL, options: ['a1', 'b2'] }],
    ['levels missing for score', { ...SCORE, levels: undefined }],
    ['an unknown mode', { ...NOUL, mode: 'vote' }],
    ['an unknown field', { ...NOUL, priority: 'high' }],
    ['a __proto__ key', withKey(NOUL, '__proto__')],
    ['a constructor key', withKey(CHOICE, 'constructor')],
    ['a question of eight zero-width spaces', { ...NOUL, question: '\u200B'.repeat(8) }],
    ['options differing only by a zero-width space', { ...CHOICE, options: ['MongoDB', 'Mongo\u200BDB'] }],
    ['options differing only by Unicode normalisation', { ...CHOICE, options: ['Caf\u00E9', 'cafe\u0301'] }],
  ];

  it.each(invalid)('%s: the same invalid_request sentence as POST /v1/decisions', async (_, args) => {
    const { key } = await svc.newKey(10);
    await connect(key);
    const http = await svc.call('POST', '/v1/decisions', { key, json: args });
    expect(http.status).toBe(400);
    const before = svc.fake.requests.length;
    const result = await client!.callTool({ name: 'weigh_decision', arguments: JSON.parse(JSON.stringify(args)) });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(lineOf(result)).toBe(`${http.body.error} (invalid_request)`);
    expect(svc.fake.requests.length).toBe(before);
    expect(await usageOf(key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
  });

  it('the 2025 era refuses unknown keys by name too, __proto__ included, and get_usage takes none', async () => {
    const { key } = await svc.newKey(10);
    const before = svc.fake.requests.length;
    const legacy = await legacyClient(svc.url, key);
    try {
      const stress = await legacy.callTool({ name: 'stress_test_decision', arguments: withKey(CHOICE, '__proto__') });
      expect(stress.isError).toBe(true);
      expect(lineOf(stress)).toBe('__proto__: not allowed here (invalid_request)');
      const usage = await legacy.callTool({ name: 'get_usage', arguments: withKey({}, '__proto__') });
      expect(lineOf(usage)).toBe('__proto__: not allowed here (invalid_request)');
    } finally {
      await legacy.close();
    }
    await connect(key);
    const usage = await client!.callTool({ name: 'get_usage', arguments: { verbose: true } });
    expect(usage.isError).toBe(true);
    expect(lineOf(usage)).toBe('verbose: not allowed here (invalid_request)');
    expect((await client!.callTool({ name: 'get_usage', arguments: {} })).isError).toBeFalsy();
    expect(svc.fake.requests.length).toBe(before);
    expect(await usageOf(key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
  });

  it('a depth argument is refused: each tool fixes its depth', async () => {
    const { key } = await svc.newKey(10);
    await connect(key);
    const weigh = await client!.callTool({ name: 'weigh_decision', arguments: { ...NOUL, depth: 'stress' } });
    expect(weigh.isError).toBe(true);
    expect(lineOf(weigh)).toBe(
      'depth: not allowed here; this tool runs at standard depth (use stress_test_decision for the other) (invalid_request)',
    );
    const stress = await client!.callTool({ name: 'stress_test_decision', arguments: { ...NOUL, depth: 'standard' } });
    expect(lineOf(stress)).toMatch(/^depth: not allowed here; this tool runs at stress depth/);
    expect(await usageOf(key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
  });

  it('402: a stress test without a funded pass, or with too few credits', async () => {
    const broke = await svc.newKey();
    await connect(broke.key);
    const none = await client!.callTool({ name: 'stress_test_decision', arguments: { ...CHOICE } });
    expect(none.isError).toBe(true);
    expect(lineOf(none)).toBe('a stress decision costs 5 credits and needs a funded pass; the pass holds 0 credits (pass_required)');
    await client!.close();

    const poor = await svc.newKey(4);
    await connect(poor.key);
    const few = await client!.callTool({ name: 'stress_test_decision', arguments: { ...CHOICE } });
    expect(lineOf(few)).toBe('a stress decision costs 5 credits; the pass holds fewer (insufficient_credits)');
    expect(await usageOf(poor.key)).toMatchObject({ passCredits: 4 });
  });

  it('429: the free allowance used up on a never-funded pass, with when to retry', async () => {
    const { key } = await svc.newKey();
    await connect(key);
    for (let i = 0; i < 2; i++) expect((await client!.callTool({ name: 'weigh_decision', arguments: { ...NOUL } })).isError).toBeFalsy();
    const refused = await client!.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(refused.isError).toBe(true);
    expect(lineOf(refused)).toBe(
      "the free allowance of 2 decisions a day is used up; it resets at the next UTC midnight, or fund the key's pass (free_limit_reached; retry after 43200 s)",
    );
  });

  const engineFailures: Array<[string, string, object]> = [
    ['a 503 of the provider', 'engine_unavailable', { status: 503 }],
    ['garbage', 'engine_bad_response', { garbage: true }],
    ['a hang past the deadline', 'engine_timeout', { hang: true }],
    ['429 twice', 'engine_busy', { status: 429, headers: { 'retry-after': '0' } }],
  ];

  it.each(engineFailures)('%s → %s as a tool error; neither credits nor the allowance are taken', async (_, code, behaviour) => {
    const target = 'hang' in behaviour ? hanging : svc;
    const paying = await target.newKey(6);
    await connect(paying.key, target);
    target.fake.respond(() => behaviour);
    const standard = await client!.callTool({ name: 'weigh_decision', arguments: { ...CHOICE } });
    const stress = await client!.callTool({ name: 'stress_test_decision', arguments: { ...CHOICE } });
    for (const result of [standard, stress]) {
      expect(result.isError).toBe(true);
      expect(lineOf(result)).toMatch(new RegExp(`\\(${code}(; retry after \\d+ s)?\\)$`));
      expect(lineOf(result)).not.toContain('sk-');
    }
    target.fake.respond();
    expect((await target.call('GET', '/v1/usage', { key: paying.key })).body).toMatchObject({ freeUsed: 0, passCredits: 6 });
    expect(audit(target.dir)).toEqual([]);
  });

  it('the per-IP free limit counts MCP and HTTP decisions from the same client IP together', async () => {
    const ipLimited = await startWithOpenAI({ limits: { freePerIp: 2 } });
    const mcp = await modernClient(ipLimited.url, (await ipLimited.newKey()).key);
    try {
      const other = await ipLimited.newKey();
      expect((await ipLimited.call('POST', '/v1/decisions', { key: other.key, json: NOUL })).status).toBe(200);
      expect((await mcp.callTool({ name: 'weigh_decision', arguments: { ...NOUL } })).isError).toBeFalsy();
      const refused = await mcp.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(refused.isError).toBe(true);
      expect(lineOf(refused)).toMatch(/ \(rate_limited; retry after \d+ s\)$/);
      expect((await ipLimited.call('POST', '/v1/decisions', { key: other.key, json: NOUL })).body.code).toBe('rate_limited');
    } finally {
      await mcp.close();
      await ipLimited.close();
    }
  });

  it('an unknown tool is a JSON-RPC error, not a tool result', async () => {
    const { key } = await svc.newKey();
    await connect(key);
    await expect(client!.callTool({ name: 'decide_everything', arguments: {} })).rejects.toThrow(/decide_everything/);
  });
});
