import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionResponse, Usage } from '../../src/contract/index.js';
import { PACKAGE_VERSION } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { initialize, legacyClient, lineOf, MODERN, modernClient, modernRequest, rpc } from './clients.js';

/** One endpoint, both protocol eras: 2026-07-28 and 2025-11-25 / 2025-06-18 / 2025-03-26. */
describe('protocol versions on POST /mcp', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('the 2.x SDK client speaks 2026-07-28 (server/discover, no initialize)', async () => {
    const { key } = await svc.newKey();
    const from = svc.logs.length;
    const client = await modernClient(svc.url, key);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()).toMatchObject({ name: 'decide', version: PACKAGE_VERSION });
      const result = await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(DecisionResponse.safeParse(result.structuredContent).success).toBe(true);
    } finally {
      await client.close();
    }
    // No GET stream, no session: only POSTs reached the server.
    const lines = svc.logs.slice(from).map((line) => JSON.parse(line));
    expect(lines.every((line) => line.method === 'POST' && line.status === 200)).toBe(true);
  });

  it('the 1.x SDK client speaks 2025-11-25 (initialize), with the same tools and results', async () => {
    const { key } = await svc.newKey(3);
    const client = await legacyClient(svc.url, key);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'decide' });
      expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe('2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['weigh_decision', 'stress_test_decision', 'get_usage']);
      const result = await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(result.isError).toBeFalsy();
      expect(DecisionResponse.parse(result.structuredContent).access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(lineOf(result)).toMatch(
        /^yes \d+ % \((yes|no|unclear|needs-context)\) · context sufficiency [\d.]+ · label mass [\d.]+ · 19 free left$/,
      );
      const usage = await client.callTool({ name: 'get_usage', arguments: {} });
      expect(Usage.parse(usage.structuredContent)).toMatchObject({ freeUsed: 1, passCredits: 3 });
      const failed = await client.callTool({ name: 'weigh_decision', arguments: { mode: 'noul', question: 'Why?' } });
      expect(failed.isError).toBe(true);
      expect(lineOf(failed)).toMatch(/^question: must be 8 to 300 characters long \(got 4\); context: .* \(invalid_request\)$/);
    } finally {
      await client.close();
    }
  });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('raw initialize at %s is answered at that version, as JSON', async (version) => {
    const res = await rpc(svc.url, initialize(version));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: version, serverInfo: { name: 'decide' }, capabilities: { tools: {} } },
    });
    const list = await rpc(svc.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { headers: { 'mcp-protocol-version': version } });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toMatch(/^application\/json/);
    expect(list.body.result.tools).toHaveLength(3);
  });

  it('a tool call of each 2025 version is answered as JSON, not as an SSE stream', async () => {
    const { key } = await svc.newKey();
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_usage', arguments: {} } };
      const res = await rpc(svc.url, call, { key, headers: { 'mcp-protocol-version': version } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Usage.safeParse(res.body.result.structuredContent).success).toBe(true);
    }
  });

  it('a raw 2026-07-28 server/discover names the modern version served, as JSON', async () => {
    const discover = modernRequest('server/discover');
    const res = await rpc(svc.url, discover.message, { headers: discover.headers });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // The 2025 versions are negotiated by initialize; discover lists the modern ones.
    expect(res.body.result.supportedVersions).toEqual([MODERN]);
    expect(res.body.result.capabilities).toEqual({ tools: { listChanged: false } });
    expect(res.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'decide', version: PACKAGE_VERSION });
  });

  it('an older client asking for 2024-11-05 is offered 2025-11-25, the newest 2025 version', async () => {
    const res = await rpc(svc.url, initialize('2024-11-05'));
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe('2025-11-25');
  });

  it('an unsupported MCP-Protocol-Version is answered 400, in either era', async () => {
    const legacy = await rpc(
      svc.url,
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { headers: { 'mcp-protocol-version': '2024-11-05' } },
    );
    expect(legacy.status).toBe(400);
    expect(legacy.body.jsonrpc).toBe('2.0');
    expect(legacy.body.error.message).toMatch(/Unsupported protocol version: 2024-11-05/);

    const future = modernRequest('tools/list', {}, '2099-01-01');
    const modern = await rpc(svc.url, future.message, { headers: future.headers });
    expect(modern.status).toBe(400);
    expect(modern.body.error.code).toBe(-32022);
    expect(modern.body.error.data.supported).toEqual([MODERN]);
  });
});
