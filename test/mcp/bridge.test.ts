import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DecisionResponse, Usage } from '../../src/contract/index.js';
import { assertBuilt, BIN, cleanEnv, ROOT, waitUntil } from '../support/cli.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { initialize, lineOf } from './clients.js';

/** `decide mcp` as a desktop agent runs it: a child process on stdio, forwarding to a real server. */

interface Bridge {
  client: Client;
  stderr: () => string;
}

const open: Client[] = [];

async function startBridge(env: Record<string, string>, mode: 'legacy' | 'auto' = 'legacy'): Promise<Bridge> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: ROOT,
    env: cleanEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'decide-test-desktop', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  open.push(client);
  return { client, stderr: () => stderr };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('decide mcp, the stdio bridge', () => {
  let svc: Running;
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
  });

  it('forwards tools/list and tools/call to the remote /mcp, with the key from DECIDE_API_KEY', async () => {
    const created = await svc.newKey(3);
    const bridge = await startBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: created.key });
    const { tools } = await bridge.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['weigh_decision', 'stress_test_decision', 'get_usage']);
    expect(tools[0].inputSchema.required).toEqual(['mode', 'question', 'context']);

    const result = await bridge.client.callTool({ name: 'weigh_decision', arguments: { ...CHOICE } });
    expect(result.isError).toBeFalsy();
    const response = DecisionResponse.parse(result.structuredContent);
    expect(response.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(lineOf(result)).toMatch(/^(PostgreSQL|MongoDB) \d+ % \(\w[\w-]*\) · context sufficiency [\d.]+ · 19 free left$/);
    expect(result._meta).toBeUndefined();

    const usage = await bridge.client.callTool({ name: 'get_usage', arguments: {} });
    expect(Usage.parse(usage.structuredContent)).toMatchObject({ freeUsed: 1, passCredits: 3 });
    expect((await svc.call('GET', '/v1/usage', { key: created.key })).body.freeUsed).toBe(1);

    // A decision's failure comes back as the server's tool error, word for word.
    const invalid = await bridge.client.callTool({ name: 'weigh_decision', arguments: { ...NOUL, options: ['a1', 'b2'] } });
    expect(invalid.isError).toBe(true);
    expect(lineOf(invalid)).toBe('options: not allowed here (invalid_request)');
    // An unknown tool stays a JSON-RPC error.
    await expect(bridge.client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/nope/);

    // The key travels to the server but never into the bridge's diagnostics.
    expect(bridge.stderr()).toContain(`with key ${created.keyHint}`);
    expect(bridge.stderr()).not.toContain(created.key);
    expect(svc.logs.some((line) => line.includes(`"key":"${created.keyHint}"`))).toBe(true);
  });

  it('serves a 2026-07-28 client on stdio too', async () => {
    const { key } = await svc.newKey();
    const bridge = await startBridge({ DECIDE_URL: `${svc.url}/mcp`, DECIDE_API_KEY: key }, 'auto');
    expect(bridge.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await bridge.client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(DecisionResponse.safeParse(result.structuredContent).success).toBe(true);
  });

  it('without DECIDE_API_KEY: tools are listed, and a call says what to set', async () => {
    const before = svc.fake.requests.length;
    const bridge = await startBridge({ DECIDE_URL: svc.url });
    expect((await bridge.client.listTools()).tools).toHaveLength(3);
    const result = await bridge.client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(result.isError).toBe(true);
    expect(lineOf(result)).toMatch(/^DECIDE_API_KEY is not set: .*`decide key create`.*set DECIDE_API_KEY/);
    expect(bridge.stderr()).toContain('DECIDE_API_KEY is not set');
    expect(svc.fake.requests.length).toBe(before);
  });

  it('with a mistyped key: a tool error before anything is sent', async () => {
    const { key } = await svc.newKey();
    const typo = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    const from = svc.logs.length;
    const bridge = await startBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: typo });
    const result = await bridge.client.callTool({ name: 'get_usage', arguments: {} });
    expect(result.isError).toBe(true);
    expect(lineOf(result)).toMatch(/^DECIDE_API_KEY does not hold a well-formed decide key/);
    expect(svc.logs.slice(from).some((line) => line.includes('"status":401'))).toBe(false);
    expect(bridge.stderr()).not.toContain(typo);
  });

  it('with a refused key: a tool error naming DECIDE_API_KEY', async () => {
    const { key } = await svc.newKey();
    expect((await svc.call('DELETE', '/v1/key', { key })).status).toBe(200);
    const bridge = await startBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: key });
    const result = await bridge.client.callTool({ name: 'get_usage', arguments: {} });
    expect(result.isError).toBe(true);
    expect(lineOf(result)).toMatch(/refused the key \(unauthorized\): DECIDE_API_KEY is missing, unknown or revoked/);
    // Still alive and still answering.
    expect((await bridge.client.listTools()).tools).toHaveLength(3);
  });

  it('with no server: the built-in tool list, and tool errors naming DECIDE_URL, never a crash', async () => {
    const port = await closedPort();
    const bridge = await startBridge({ DECIDE_URL: `http://127.0.0.1:${port}`, DECIDE_API_KEY: (await svc.newKey()).key });
    const { tools } = await bridge.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['weigh_decision', 'stress_test_decision', 'get_usage']);
    for (let i = 0; i < 2; i++) {
      const result = await bridge.client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(result.isError).toBe(true);
      expect(lineOf(result)).toBe(
        `cannot reach the decide server at http://127.0.0.1:${port}/mcp (ECONNREFUSED): start it with \`decide serve\`, or set DECIDE_URL to where it runs.`,
      );
    }
    expect(bridge.stderr()).toContain('Listing the built-in tool definitions');
  });

  it('writes nothing but JSON-RPC on stdout, and exits when stdin closes', async () => {
    const { key } = await svc.newKey();
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      cwd: ROOT,
      env: cleanEnv({ DECIDE_URL: svc.url, DECIDE_API_KEY: key }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');
      send(initialize('2025-06-18'));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_usage', arguments: {} } });
      await waitUntil(() => stdout.split('\n').filter(Boolean).length >= 3, 'three answers on stdout', 15_000);
      const lines = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
      expect(lines.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(lines.map((m) => m.id).sort()).toEqual([1, 2, 3]);
      expect(lines.find((m) => m.id === 1).result.protocolVersion).toBe('2025-06-18');
      expect(lines.find((m) => m.id === 3).result.structuredContent.freeLimit).toBe(20);
      expect(stderr).toMatch(/^decide mcp: forwarding to /);
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a DECIDE_URL that is no URL stops it with exit 78 and a sentence', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: cleanEnv({ DECIDE_URL: 'not a url' }) });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(stderr).toMatch(/^decide: DECIDE_URL \/ --url "not a url" is not a usable URL/);
  });
});
