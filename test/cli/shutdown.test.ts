import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runJson, startServe, useServeFixture, waitUntil } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { audit, chargeStates } from '../ledger/helpers.js';
import { connect, refusedWithin } from '../support/ports.js';
import { gate, scaled } from '../support/time.js';

/** An HTTP client that keeps its connections open for ten minutes, as long-lived clients do. */
function keepAliveClient() {
  const agent = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
  return {
    async post(url: string, key: string, json: unknown) {
      const res = await request(`${url}/v1/decisions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as any };
    },
    async get(url: string, key: string) {
      const res = await request(`${url}/v1/usage`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      await res.body.dump();
      return { status: res.statusCode };
    },
    close: () => agent.destroy(),
  };
}

describe('decide serve: graceful shutdown on SIGTERM', () => {
  const serve = useServeFixture();

  it('the in-flight decision gets its 200, new connections are refused, then exit 0', async () => {
    const { fake, tmp } = serve;
    const { key } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
    expect(await connect(server.port)).toBe('connected');

    // The engine answers only when the test says so: after the signal and the checks below.
    const engine = gate();
    fake.respond(() => ({ until: engine.promise }));
    try {
      const inFlight = call(server.url, 'POST', '/v1/decisions', { key, json: NOUL });
      let answered = false;
      inFlight.then(() => (answered = true)).catch(() => {}); // awaited below; no unhandled rejection if a check fails first
      await waitUntil(() => fake.requests.length > 0, 'the engine call of the decision');

      server.child.kill('SIGTERM');
      await server.waitForStderr(/^decide: SIGTERM, finishing in-flight requests$/);
      // No longer accepting, yet still running: the decision is not done.
      expect(await refusedWithin(server.port, scaled(2_000))).toBe('ECONNREFUSED');
      expect(server.child.exitCode).toBeNull();
      expect(answered).toBe(false);

      engine.open();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(res.body.mode).toBe('noul');
      expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    } finally {
      engine.open();
    }

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
  it('exits after its last in-flight answer, which closes the connection, even for a keep-alive client', async () => {
    const { fake, tmp } = serve;
    const { key } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
    const client = keepAliveClient();
    const engine = gate();
    fake.respond(() => ({ until: engine.promise }));
    try {
      const inFlight = client.post(server.url, key, NOUL);
      inFlight.catch(() => {}); // awaited below
      await waitUntil(() => fake.requests.length > 0, 'the engine call of the decision');
      server.child.kill('SIGTERM');
      await server.waitForStderr(/^decide: SIGTERM, finishing in-flight requests$/);
      engine.open();
      const res = await inFlight;
      expect(res.status).toBe(200);
      // The answer tells the client the connection ends with it, and the server ends it:
      // the process does not wait for a client that would keep it for ten minutes.
      expect(res.headers.connection).toBe('close');
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      engine.open();
      await client.close();
    }
  });

  it('with nothing in flight, SIGTERM exits 0 and SIGINT does too, an idle keep-alive connection notwithstanding', async () => {
    const { fake, tmp } = serve;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-shutdown'));
      const { key } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
      // A client that would keep its now idle connection for ten minutes.
      const client = keepAliveClient();
      try {
        expect((await client.get(server.url, key)).status).toBe(200);
        const exit = await server.stop(signal);
        expect(exit).toEqual({ code: 0, signal: null });
        expect(server.stderr).toContain(`decide: ${signal}, finishing in-flight requests`);
      } finally {
        await client.close();
      }
    }
  });
});
