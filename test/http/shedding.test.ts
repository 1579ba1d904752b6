import { afterEach, describe, expect, it } from 'vitest';
import { lineOf, modernClient } from '../mcp/clients.js';
import { audit } from '../ledger/helpers.js';
import { NOUL } from '../support/requests.js';
import { waitUntil } from '../support/cli.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';

/**
 * Shedding by queue time, for an engine that declares no capacity (a provider over
 * HTTP): once decisions of a depth take so long that one more would likely finish
 * past the deadline, the next is refused at once with 429 `engine_busy` and
 * Retry-After, on the API and through MCP, before anything is charged.
 * The overload here is an engine that stops answering: the first decision runs into
 * its deadline, so its depth is timed at the whole deadline, and no duration is
 * compared.
 */
describe('shedding decisions that would finish past the deadline', () => {
  let svc: Running | undefined;
  const releases: Array<() => void> = [];
  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await svc?.close();
    svc = undefined;
  });

  /** Holds every engine answer until the returned function is called (or the test ends). */
  function hold(running: Running) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    releases.push(release);
    running.fake.respond(async () => {
      await released;
      return {};
    });
    return release;
  }

  it('refuses with 429 engine_busy while a decision of that depth runs, charges nothing, and keeps the ledger exact', async () => {
    // Generous, so the decision let in below is answered well within it on a loaded machine.
    svc = await startWithOpenAI({ engineTimeoutMs: scaled(2_000) });
    const running = svc;

    hold(running);
    const timedOut = await running.newKey();
    const first = await running.call('POST', '/v1/decisions', { key: timedOut.key, json: NOUL });
    expect(first.status).toBe(504); // a standard decision now takes about the whole deadline

    // One of the depth still gets in while none runs, so the depth keeps being timed.
    const release = hold(running);
    const admittedKey = await running.newKey();
    const engineCalls = running.fake.requests.length + 2; // and its main question and sufficiency probe, held
    const admitted = running.call('POST', '/v1/decisions', { key: admittedKey.key, json: NOUL });
    await waitUntil(() => running.fake.requests.length === engineCalls, 'the second decision with the engine');
    expect(running.service.engineLoad.running).toBe(1);

    const refusedKey = await running.newKey(5);
    const refused = await running.call('POST', '/v1/decisions', {
      key: refusedKey.key,
      json: NOUL,
      headers: { 'Idempotency-Key': 'shed-once' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('engine_busy');
    expect(refused.body.error).toMatch(/^the decision engine is saturated: .* past the \d+ ms deadline; retry shortly$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const mcpKey = await running.newKey();
    const mcp = await modernClient(running.url, mcpKey.key);
    try {
      const tool = await mcp.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(tool.isError).toBe(true);
      expect(lineOf(tool)).toMatch(/^the decision engine is saturated: .* \(engine_busy; retry after \d+ s\)$/);
    } finally {
      await mcp.close();
    }
    expect(running.fake.requests).toHaveLength(engineCalls); // the refused ones never reached the engine

    release();
    expect((await admitted).status).toBe(200);
    expect((await running.call('GET', '/v1/usage', { key: timedOut.key })).body).toMatchObject({ freeUsed: 0 });
    expect((await running.call('GET', '/v1/usage', { key: admittedKey.key })).body).toMatchObject({ freeUsed: 1 });
    expect((await running.call('GET', '/v1/usage', { key: refusedKey.key })).body).toMatchObject({ freeUsed: 0, passCredits: 5 });
    expect((await running.call('GET', '/v1/usage', { key: mcpKey.key })).body).toMatchObject({ freeUsed: 0 });
    expect(running.service.engineLoad).toEqual({ running: 0, waiting: 0 });
    expect(audit(running.dir)).toEqual([]);

    // The refusal left nothing for its Idempotency-Key: the same request, once the engine is free, runs afresh.
    running.fake.respond();
    const retried = await running.call('POST', '/v1/decisions', {
      key: refusedKey.key,
      json: NOUL,
      headers: { 'Idempotency-Key': 'shed-once' },
    });
    expect(retried.status).toBe(200); // none of its depth running: let in, as above
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});
