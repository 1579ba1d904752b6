import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runJson, startServe, useServeFixture, waitUntil } from '../support/cli.js';
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

/**
 * Polls until a fresh connection is refused. The signal line is written just before the
 * listener closes, so the first attempt can still race the close by a few microseconds.
 */
async function refusedWithin(port: number, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let outcome = await connect(port);
  while (outcome !== 'ECONNREFUSED' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    outcome = await connect(port);
  }
  return outcome;
}

describe('decide serve: graceful shutdown on SIGTERM', () => {
  const serve = useServeFixture();

  it('the in-flight decision gets its 200, new connections are refused, then exit 0', async () => {
    const { fake, tmp } = serve;
    const { key } = await runJson(['key', 'create', '--db', tmp.db]);
    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
    expect(await connect(server.port)).toBe('connected');

    fake.respond(() => ({ delayMs: 1500 }));
    fake.requests.length = 0;
    const startedAt = Date.now();
    const inFlight = call(server.url, 'POST', '/v1/decisions', { key, json: NOUL });
    let answered = false;
    inFlight.then(() => (answered = true)).catch(() => {}); // awaited below; no unhandled rejection if a check fails first
    await waitUntil(() => fake.requests.length > 0, 'the engine call of the decision');

    server.child.kill('SIGTERM');
    await server.waitForStderr(/^decide: SIGTERM, finishing in-flight requests$/);
    // No longer accepting, yet still running: the decision is not done.
    expect(await refusedWithin(server.port, 500)).toBe('ECONNREFUSED');
    expect(server.child.exitCode).toBeNull();
    expect(answered).toBe(false);

    const res = await inFlight;
    const answeredAfter = Date.now() - startedAt;
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('noul');
    expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(answeredAfter).toBeGreaterThanOrEqual(1400);

    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // The access log is written in batches; the last line still made it out before the exit.
    const logged = server.stdout.slice(1).map((line) => JSON.parse(line));
    expect(logged).toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/decisions', status: 200 }));
    // The charge was committed before the process left: nothing is left reserved.
    expect(chargeStates(tmp.dir)).toEqual({ committed: 1 });
    expect(audit(tmp.dir)).toEqual([]);
  });

  // A keep-alive connection busy at the signal must not outlive its answer: otherwise
  // the process lingers for as long as the client keeps the connection (or forever).
  it('exits within a second of its last in-flight answer, even for a keep-alive client', async () => {
    const { fake, tmp } = serve;
    const { key } = await runJson(['key', 'create', '--db', tmp.db]);
    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
    fake.respond(() => ({ delayMs: 800 }));
    fake.requests.length = 0;
    const inFlight = call(server.url, 'POST', '/v1/decisions', { key, json: NOUL });
    inFlight.catch(() => {}); // awaited below
    await waitUntil(() => fake.requests.length > 0, 'the engine call of the decision');
    server.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(200);
    const answeredAt = Date.now();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - answeredAt).toBeLessThan(1_000);
  });

  it('with nothing in flight, SIGTERM exits 0 promptly and SIGINT does too', async () => {
    const { fake, tmp } = serve;
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
