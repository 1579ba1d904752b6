import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';

/**
 * A provider's latency is waiting, not work: an idle server in front of a provider
 * answering in 5 s (30 s deadline) let in 2, 3, 4 and 5 of four waves of 30, because
 * it counted each decision's 5 s as CPU that every newcomer would share. Here the
 * provider answers in a fifth of the deadline, as that one did in a sixth.
 */
describe('admission in front of a slow provider', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('an idle server admits every wave of 30 whose deadline it can meet, each charged once', async () => {
    const deadline = scaled(5_000);
    svc = await startWithOpenAI({ engineTimeoutMs: deadline, limits: { freePerKey: 1_000 } });
    const running = svc;
    let latencyMs = 0;
    running.fake.respond(async () => {
      await sleep(latencyMs);
      return {};
    });
    const key = await running.newKey();
    // An operator's checks after start-up, one at a time and answered at once: enough of
    // them that the first one's CPU (code compiled on first use, several times more on a
    // loaded machine) no longer weighs on what a decision's share of the process is taken
    // to be. Then the provider slows down to a fifth of the deadline.
    for (let check = 0; check < 20; check++) {
      expect((await running.call('POST', '/v1/decisions', { key: key.key, json: NOUL })).status).toBe(200);
    }
    latencyMs = deadline / 5;
    for (let wave = 0; wave < 4; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => running.call('POST', '/v1/decisions', { key: key.key, json: NOUL })),
      );
      const statuses = answers.map((a) => a.status);
      expect(
        statuses.filter((s) => s === 200),
        `wave ${wave + 1}: ${answers.find((a) => a.status !== 200)?.text}`,
      ).toHaveLength(30);
    }
    expect((await running.call('GET', '/v1/usage', { key: key.key })).body).toMatchObject({ freeUsed: 140 });
    expect(audit(running.dir)).toEqual([]);
  });

  it("a cold burst beyond the engine's connection pool gets 429 with Retry-After at once, not a wait in the pool into 504", async () => {
    // Each standard decision is two calls; a pool of 4 answers two decisions a round.
    const deadline = scaled(5_000);
    svc = await startWithOpenAI({ engineTimeoutMs: deadline, connections: 4, limits: { freePerKey: 1_000 } });
    const running = svc;
    running.fake.respond(async () => {
      await sleep(deadline / 4);
      return {};
    });
    const key = await running.newKey();
    const answers = await Promise.all(
      Array.from({ length: 24 }, () => running.call('POST', '/v1/decisions', { key: key.key, json: NOUL })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 504)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.body.code).toBe('engine_busy');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect((await running.call('GET', '/v1/usage', { key: key.key })).body).toMatchObject({ freeUsed: 4 });
    expect(audit(running.dir)).toEqual([]);
  });
});
