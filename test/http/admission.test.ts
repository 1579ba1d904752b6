import { afterEach, describe, expect, it } from 'vitest';
import { lineOf, modernClient } from '../mcp/clients.js';
import { audit } from '../ledger/helpers.js';
import { NOUL } from '../support/requests.js';
import { waitUntil } from '../support/cli.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/**
 * Admission over the wire: an engine that declares its capacity (here the OpenAI
 * fake declaring one decision at a time, as the local engine declares its own) gets
 * a queue in front of it, and what cannot wait is refused at once with 429
 * `engine_busy` and Retry-After, on the API and through MCP, before any charge.
 */
describe('admission in front of an engine of known capacity', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  /** Holds every engine answer until `open()`. */
  function gate(running: Running) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    running.fake.respond(async () => {
      await opened;
      return {};
    });
    return open;
  }

  it('at capacity with nothing timed yet: the next decision gets 429 at once, on /v1/decisions and MCP, and nothing is charged', async () => {
    svc = await startWithOpenAI({ capacity: 1 });
    const open = gate(svc);
    const first = await svc.newKey();
    const answering = svc.call('POST', '/v1/decisions', { key: first.key, json: NOUL });
    await svc.fake.whenInFlight(2); // its main question and its sufficiency probe

    const refusedKey = await svc.newKey(5);
    const refused = await svc.call('POST', '/v1/decisions', { key: refusedKey.key, json: { ...NOUL, depth: 'stress' } });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.code).toBe('engine_busy');
    expect(refused.body.error).toContain('the decision engine is saturated');

    const mcpKey = await svc.newKey();
    const mcp = await modernClient(svc.url, mcpKey.key);
    try {
      const tool = await mcp.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
      expect(tool.isError).toBe(true);
      expect(lineOf(tool)).toMatch(/^the decision engine is saturated: .* \(engine_busy; retry after 1 s\)$/);
    } finally {
      await mcp.close();
    }

    open();
    expect((await answering).status).toBe(200);
    expect((await svc.call('GET', '/v1/usage', { key: first.key })).body).toMatchObject({ freeUsed: 1 });
    expect((await svc.call('GET', '/v1/usage', { key: refusedKey.key })).body).toMatchObject({ freeUsed: 0, passCredits: 5 });
    expect((await svc.call('GET', '/v1/usage', { key: mcpKey.key })).body).toMatchObject({ freeUsed: 0 });
    expect(svc.fake.requests).toHaveLength(2);
    expect(audit(svc.dir)).toEqual([]);
  });

  it('once decisions have been timed, the next one waits for the slot and is answered, each charged once', async () => {
    svc = await startWithOpenAI({ capacity: 1 });
    const { key } = await svc.newKey();
    expect((await svc.call('POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200); // timed
    const open = gate(svc);
    const first = svc.call('POST', '/v1/decisions', { key, json: NOUL });
    await svc.fake.whenInFlight(2);
    const second = svc.call('POST', '/v1/decisions', { key, json: NOUL });
    await waitUntil(() => svc!.service.engineLoad.waiting === 1, 'the second decision waiting for the slot');
    open();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 3 });
    expect(audit(svc.dir)).toEqual([]);
  });
});
