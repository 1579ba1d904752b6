import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DecisionResponse, Usage } from '../../src/contract/index.js';
import { assertBuilt, BIN, cleanEnv, ROOT, waitUntil } from '../support/cli.js';
import { CHOICE, NOUL, withKey } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { initialize, lineOf } from './clients.js';
import { scaled } from '../support/time.js';

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

const children: ChildProcessWithoutNullStreams[] = [];

/** `decide mcp` driven line by line, as a client that may write anything. */
function rawBridge(env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return {
    write: (line: string) => child.stdin.write(`${line}\n`),
    /** Every line on stdout so far, once there are at least `n`. */
    answers: async (n: number) => {
      await waitUntil(() => lines().length >= n, `${n} lines on stdout`, scaled(15_000));
      return lines();
    },
  };
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
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
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
    expect(lineOf(result)).toMatch(
      /^(PostgreSQL|MongoDB) \d+ % \(\w[\w-]*\) · confidence [\d.]+: 0 = evenly split, 1 = certain · context sufficiency [\d.]+ · label mass [\d.]+ · 19 free left$/,
    );
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

  it('never shows the password of a DECIDE_URL like http://alice:PW@host, on stderr or in a tool error', async () => {
    const { key } = await svc.newKey();
    const port = new URL(svc.url).port;
    for (const url of [`http://alice:S3cretPW@127.0.0.1:${port}`, `http://alice:S3cretPW@127.0.0.1:${await closedPort()}`]) {
      const bridge = await startBridge({ DECIDE_URL: url, DECIDE_API_KEY: key });
      const result = await bridge.client
        .callTool({ name: 'weigh_decision', arguments: { ...NOUL } })
        .catch((error: Error) => ({ thrown: error.message }));
      const said = JSON.stringify(result) + bridge.stderr();
      expect(said).toContain('127.0.0.1');
      expect(said).not.toContain('S3cretPW');
    }
  });

  it('a DECIDE_URL with ?token= and user:pass@: stderr names the host and path, never a secret; a base URL ending in /v1 is that server', async () => {
    const { key } = await svc.newKey(2);
    const port = new URL(svc.url).port;
    // Without userinfo the call goes through (the server ignores the query); /v1 and /v1/ are the server's root.
    for (const url of [`${svc.url}?token=s3cret-tok-49`, `${svc.url}/v1?token=s3cret-tok-49`, `${svc.url}/v1/`]) {
      const bridge = await startBridge({ DECIDE_URL: url, DECIDE_API_KEY: key });
      const usage = await bridge.client.callTool({ name: 'get_usage', arguments: {} });
      expect(usage.isError, JSON.stringify(usage)).toBeFalsy();
      expect(Usage.parse(usage.structuredContent)).toMatchObject({ passCredits: 2 });
      const query = url.includes('?') ? '?token=***' : '';
      expect(bridge.stderr()).toContain(`decide mcp: forwarding to http://127.0.0.1:${port}/mcp${query} with key`);
      expect(bridge.stderr()).not.toContain('s3cret-tok-49');
    }
    // With a password too, to a live server and to a closed port: whatever fails says where, masked.
    for (const where of [port, String(await closedPort())]) {
      const url = `http://alice:S3cretPW-49@127.0.0.1:${where}/?token=s3cret-tok-49`;
      const bridge = await startBridge({ DECIDE_URL: url, DECIDE_API_KEY: key });
      const result = await bridge.client
        .callTool({ name: 'weigh_decision', arguments: { ...NOUL } })
        .catch((error: Error) => ({ thrown: error.message }));
      expect(bridge.stderr()).toContain(`forwarding to http://alice:***@127.0.0.1:${where}/mcp?token=***`);
      const said = JSON.stringify(result) + bridge.stderr();
      for (const secret of ['S3cretPW-49', 's3cret-tok-49']) expect(said).not.toContain(secret);
    }
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
      await waitUntil(() => stdout.split('\n').filter(Boolean).length >= 3, 'three answers on stdout', scaled(15_000));
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
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

  it('answers every line the SDK would drop: not JSON (-32700), no message (-32600), a batch where none is allowed', async () => {
    const bridge = rawBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: (await svc.newKey()).key });
    bridge.write('this is not JSON');
    bridge.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
    bridge.write('[{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    bridge.write('[]');
    bridge.write('{"id":3,"method":"ping"}');
    bridge.write(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: 2025, capabilities: {} } }));
    const refused = await bridge.answers(6);
    const error = (id: number | null, code: number, message: unknown) => ({ jsonrpc: '2.0', id, error: { code, message } });
    expect(refused).toEqual([
      error(null, -32700, expect.stringMatching(/^Parse error: the line is not valid JSON \(.+\)$/)),
      error(null, -32700, expect.stringMatching(/^Parse error: the line is not valid JSON/)),
      error(
        null,
        -32600,
        expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported on this connection \(only 2025-03-26/),
      ),
      error(null, -32600, 'Invalid Request: an empty batch'),
      error(3, -32600, expect.stringMatching(/^Invalid Request: not a JSON-RPC 2\.0 message/)),
      error(
        4,
        -32602,
        'Invalid params for initialize: params.protocolVersion: expected string, received number; params.clientInfo: expected object, received undefined',
      ),
    ]);

    // Still serving: a well-formed initialize, then a batch, which 2025-11-25 has no more.
    bridge.write(JSON.stringify(initialize('2025-11-25', 5)));
    expect((await bridge.answers(7))[6]).toMatchObject({ id: 5, result: { protocolVersion: '2025-11-25' } });
    bridge.write('[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]');
    bridge.write('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    const [batch, ping] = (await bridge.answers(9)).slice(7);
    expect(batch).toEqual(
      error(null, -32600, expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported at protocol version 2025-11-25/)),
    );
    expect(ping).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('at 2025-03-26 a batch gets one batch response, a bad member answered in its place', async () => {
    const { key } = await svc.newKey(2);
    const bridge = rawBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: key });
    bridge.write(JSON.stringify(initialize('2025-03-26')));
    await bridge.answers(1);
    bridge.write(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'usage', method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
        { jsonrpc: '2.0', id: 'list', method: 'tools/list' },
        { id: 'bad', method: 'ping' },
        { jsonrpc: '2.0', id: 'ping', method: 'ping' },
      ]),
    );
    const batch: Array<{ id: string | null; result?: any; error?: any }> = (await bridge.answers(2))[1];
    expect(Array.isArray(batch)).toBe(true);
    const byId = Object.fromEntries(batch.map((answer) => [answer.id, answer]));
    expect(Object.keys(byId).sort()).toEqual(['bad', 'list', 'ping', 'usage']);
    expect(byId.bad.error.code).toBe(-32600);
    expect(byId.ping.result).toEqual({});
    expect(byId.list.result.tools).toHaveLength(3);
    expect(byId.usage.result.structuredContent).toMatchObject({ freeLimit: 20, passCredits: 2 });
  });

  it('passes on the arguments as sent: the server refuses a __proto__ key by name', async () => {
    const { key } = await svc.newKey(10);
    const bridge = await startBridge({ DECIDE_URL: svc.url, DECIDE_API_KEY: key });
    const before = svc.fake.requests.length;
    for (const name of ['weigh_decision', 'stress_test_decision']) {
      const result = await bridge.client.callTool({ name, arguments: withKey(NOUL, '__proto__') });
      expect(result.isError).toBe(true);
      expect(lineOf(result)).toBe('__proto__: not allowed here (invalid_request)');
    }
    expect(svc.fake.requests.length).toBe(before);
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 0, passCredits: 10 });
  });

  it('a DECIDE_URL that is no URL stops it with exit 78 naming the variable; a bad --url, 64 naming the flag', async () => {
    const run = async (args: string[], env: Record<string, string>) => {
      const child = spawn(process.execPath, [BIN, 'mcp', ...args], { cwd: ROOT, env: cleanEnv(env) });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, stderr };
    };
    expect(await run([], { DECIDE_URL: 'not a url' })).toEqual({
      code: 78,
      stderr: 'decide: DECIDE_URL must be an http(s) URL; got "not a url"\n',
    });
    expect(await run(['--url', 'ftp://h/'], { DECIDE_URL: 'http://127.0.0.1:8787' })).toEqual({
      code: 64,
      stderr: 'decide: --url must be an http(s) URL; got "ftp://h/"\n',
    });
  });
});
