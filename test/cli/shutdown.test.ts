import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { call } from '../support/api.js';
import { assertBuilt, killChildren, openaiEnv, runJson, startServe, tempDb, waitUntil } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { audit, chargeStates } from '../ledger/helpers.js';

/** Resolves with the error code of a fresh TCP connection (or 'connected'). */
function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('decide serve: graceful shutdown on SIGTERM', () => {
  let fake: OpenAIFake;
  let tmp: ReturnType<typeof tempDb>;
  beforeAll(async () => {
    assertBuilt();
    fake = await startOpenAIFake();
  });
  afterAll(() => fake.close());
  afterEach(async () => {
    await killChildren();
    fake.respond();
    tmp.remove();
  });

  it('the in-flight decision gets its 200, new connections are refused, then exit 0', async () => {
    tmp = tempDb();
    const { key } = await runJson(['key', 'create', '--db', tmp.db]);
    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
    expect(await connect(server.port)).toBe('connected');

    fake.respond(() => ({ delayMs: 1500 }));
    fake.requests.length = 0;
    const startedAt = Date.now();
    const inFlight = call(server.url, 'POST', '/v1/decisions', { key, json: NOUL });
    await waitUntil(() => fake.requests.length > 0, 'the engine call of the decision');

    server.child.kill('SIGTERM');
    await server.waitForStderr(/^decide: SIGTERM, finishing in-flight requests$/);
    // Still running (the decision is not done), yet no longer accepting.
    expect(await connect(server.port)).toBe('ECONNREFUSED');
    expect(server.child.exitCode).toBeNull();

    const res = await inFlight;
    const answeredAfter = Date.now() - startedAt;
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('noul');
    expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(answeredAfter).toBeGreaterThanOrEqual(1400);

    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // The charge was committed before the process left: nothing is left reserved.
    expect(chargeStates(tmp.dir)).toEqual({ committed: 1 });
    expect(audit(tmp.dir)).toEqual([]);
  });

  it('with nothing in flight, SIGTERM exits 0 promptly and SIGINT does too', async () => {
    tmp = tempDb();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
      const { key } = await runJson(['key', 'create', '--db', tmp.db]);
      expect((await call(server.url, 'GET', '/v1/usage', { key })).status).toBe(200);
      const sentAt = Date.now();
      const exit = await server.stop(signal);
      expect(exit).toEqual({ code: 0, signal: null });
      // An idle keep-alive connection must not hold the process open.
      expect(Date.now() - sentAt).toBeLessThan(2_000);
      expect(server.stderr).toContain(`decide: ${signal}, finishing in-flight requests`);
    }
  });
});
