import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { eventually } from '../support/time.js';

/**
 * A client that announces `Content-Length: 100`, sends 10 bytes and closes is the
 * client's doing: the access log says 499 (nginx's "client closed request"), no
 * `level: error` line, no stack, and the server goes on serving.
 */
describe('uploads the client abandons mid-body', () => {
  let svc: Running;
  let port: number;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    port = Number(new URL(svc.url).port);
  });
  afterAll(() => svc.close());

  /** Headers, the first bytes of the body, then close; resolves once the server closed its side too. */
  async function abandon(path: string, headers: Record<string, string>, body: string, how: 'end' | 'destroy' = 'end') {
    const socket = net.connect(port, '127.0.0.1');
    socket.resume(); // read what the server says, or 'close' never comes
    await new Promise((resolve) => socket.once('connect', resolve));
    const lines = Object.entries({ Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...headers }).map(
      ([k, v]) => `${k}: ${v}\r\n`,
    );
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n${body}`);
    // Let the server reach the body read before the connection goes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    if (how === 'end') socket.end();
    else socket.destroy();
    await closed;
  }

  /** The log lines of the next request to `path`, once its access line is written. */
  async function linesOf(path: string, run: () => Promise<void>): Promise<Record<string, unknown>[]> {
    const from = svc.logs.length;
    await run();
    const since = () => svc.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
    await eventually(() => since().some((line) => line.path === path && 'status' in line), `the access line of ${path}`, { everyMs: 10 });
    return since();
  }

  function expectClientsDoing(lines: Record<string, unknown>[], path: string, key: string | null) {
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', path, status: 499, key });
    expect(lines[0]).not.toHaveProperty('level');
    expect(JSON.stringify(lines)).not.toContain('    at ');
  }

  const partial = '{"mode":"n'; // 10 bytes of the 100 announced

  it('POST /v1/decisions with a valid key: 499 in the access log, no error line', async () => {
    const { key, keyHint } = await svc.newKey();
    const lines = await linesOf('/v1/decisions', () =>
      abandon('/v1/decisions', { Authorization: `Bearer ${key}`, 'Content-Length': '100' }, partial),
    );
    expectClientsDoing(lines, '/v1/decisions', keyHint);
  });

  it('POST /v1/decisions without a valid key: refused 401 before the body mattered, no error line', async () => {
    const lines = await linesOf('/v1/decisions', () => abandon('/v1/decisions', { 'Content-Length': '100' }, partial));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ path: '/v1/decisions', status: 401, key: null });
    expect(lines[0]).not.toHaveProperty('level');
  });

  it('POST /v1/pass, anonymously from its own origin: 499, no error line', async () => {
    const lines = await linesOf('/v1/pass', () => abandon('/v1/pass', { Origin: svc.url, 'Content-Length': '100' }, partial));
    expectClientsDoing(lines, '/v1/pass', null);
  });

  it('a chunked body cut off mid-chunk, and a reset instead of a close: 499 too', async () => {
    const { key, keyHint } = await svc.newKey();
    const auth = { Authorization: `Bearer ${key}` };
    const chunked = await linesOf('/v1/decisions', () =>
      abandon('/v1/decisions', { ...auth, 'Transfer-Encoding': 'chunked' }, `64\r\n${partial}`),
    );
    expectClientsDoing(chunked, '/v1/decisions', keyHint);
    const reset = await linesOf('/v1/decisions', () => abandon('/v1/decisions', { ...auth, 'Content-Length': '100' }, partial, 'destroy'));
    expectClientsDoing(reset, '/v1/decisions', keyHint);
  });

  it('keeps serving afterwards', async () => {
    for (let i = 0; i < 5; i++) await abandon('/v1/pass', { Origin: svc.url, 'Content-Length': '100' }, partial);
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(200);
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(1);
    expect(svc.logs.some((line) => line.includes('"level":"error"'))).toBe(false);
  });
});
