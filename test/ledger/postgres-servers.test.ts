import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { call } from '../support/api.js';
import { assertBuilt, killChildren, openaiEnv, runJson, startServe, waitUntil, type Serving } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { gate, scaled } from '../support/time.js';
import { PgLedger } from './postgres-helpers.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * Several `decide serve` processes behind a load balancer, on one PostgreSQL schema:
 * the CLI as users run it (build first: `npm run build`), a loopback OpenAI fake.
 */
describe.skipIf(!POSTGRES)(`two decide serve processes on one PostgreSQL database ${NEEDS_POSTGRES}`, () => {
  let fake: OpenAIFake;
  /** This test's own schema: one test's failure leaves nothing behind for the next. */
  let ledger: PgLedger;
  beforeAll(async () => {
    assertBuilt();
    fake = await startOpenAIFake();
  });
  beforeEach(() => {
    fake.reset();
    // Slow enough that the decisions overlap inside both servers.
    fake.respond(() => ({ delayMs: 50 }));
    ledger = new PgLedger();
  });
  afterEach(async () => {
    await killChildren();
    await ledger.dispose();
  });
  afterAll(() => fake.close());

  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  it('300 simultaneous decisions split between them, on 20 free + 10 credits: exactly 30 served', async () => {
    const env = openaiEnv(fake.url, 'sk-two-servers');
    // Both start at once on a schema that does not exist yet: the migration runs once, under the lock.
    // One is told the database by --db, the other by DECIDE_DATABASE_URL.
    const servers: Serving[] = await Promise.all([
      startServe(['--db', ledger.url], env, scaled(20_000)),
      startServe([], { ...env, DECIDE_DATABASE_URL: ledger.url }, scaled(20_000)),
    ]);
    for (const server of servers) {
      const line = await server.waitForStderr(/^decide: engine /);
      expect(line).toContain(`database ${ledger.url}`);
    }

    // The operator commands, against the URL.
    const { key, passId } = await runJson(['key', 'create', '--create', '--db', ledger.url]);
    const funded = await runJson(['pass', 'fund', '--pass', passId, '--credits', '10', '--db', ledger.url]);
    expect(funded).toEqual({ passId, passCredits: 10 });
    const shown = await runJson(['pass', 'show', '--pass', passId, '--db', ledger.url]);
    expect(shown).toMatchObject({ passId, passCredits: 10, fundedEver: true });
    expect(shown.keys).toHaveLength(1);

    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        call(servers[i % 2].url, 'POST', '/v1/decisions', { key, json: NOUL }).then((answer) => ({ server: i % 2, answer })),
      ),
    );
    const statuses = answers.map((a) => a.answer.status);
    expect(count(statuses, 200)).toBe(30);
    // A cold burst past each server's engine pool (64 connections) is refused at once with
    // 429 engine_busy, before anything is charged; the rest race for the 30 and lose with 402.
    expect(count(statuses, 402) + count(statuses, 429)).toBe(270);
    expect(count(statuses, 402)).toBeGreaterThan(0);
    const served = answers.filter((a) => a.answer.status === 200).map((a) => a.answer.body);
    expect(answers.filter((a) => a.answer.status === 402).every((a) => a.answer.body.code === 'insufficient_credits')).toBe(true);
    expect(answers.filter((a) => a.answer.status === 429).every((a) => a.answer.body.code === 'engine_busy')).toBe(true);
    // Each access figure was handed out exactly once, whichever server handed it out.
    const freeLeft = served.flatMap((b) => (b.access.type === 'free' ? [b.access.freeRemaining] : []));
    const creditsLeft = served.flatMap((b) => (b.access.type === 'pass' ? [b.access.passCredits] : []));
    expect(freeLeft.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(creditsLeft.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));

    // Every server tells the same story.
    const usage = await Promise.all(servers.map((s) => call(s.url, 'GET', '/v1/usage', { key })));
    for (const u of usage) expect(u.body).toMatchObject({ freeUsed: 20, freeRemaining: 0, passCredits: 0 });
    const metrics = await Promise.all(servers.map((s) => call(s.url, 'GET', '/v1/metrics', { key })));
    expect(metrics[0].status).toBe(200);
    expect(metrics[1].body).toEqual(metrics[0].body);
    expect(metrics[0].body.api.samples).toBe(30);
    expect(metrics[0].body.overall.samples).toBe(30);

    expect(await ledger.chargeStates()).toEqual({ committed: 30 });
    expect(await ledger.audit()).toEqual([]);
    expect(await runJson(['pass', 'show', '--pass', passId, '--db', ledger.url])).toMatchObject({ passCredits: 0 });

    const split = [0, 1].map((s) => answers.filter((a) => a.server === s && a.answer.status === 200).length);
    process.stderr.write(`two servers: served ${split[0]} + ${split[1]}\n`);
    for (const server of servers) expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('a server starting while another is mid-decision leaves that live reservation alone', async () => {
    const env = openaiEnv(fake.url, 'sk-two-servers');
    const first = await startServe(['--db', ledger.url], env, scaled(20_000));
    const { key } = await runJson(['key', 'create', '--create', '--db', ledger.url]);
    // The first server's decision stays at the engine until the second server is up.
    const engine = gate();
    fake.respond(() => ({ until: engine.promise }));
    try {
      const pending = call(first.url, 'POST', '/v1/decisions', { key, json: NOUL });
      pending.catch(() => {}); // awaited below; should a check fail first, the server's end is no unhandled rejection
      await waitUntil(() => fake.requests.length > 0, 'the decision to reach the engine');
      expect(await ledger.chargeStates()).toMatchObject({ reserved: 1 });

      const second = await startServe(['--db', ledger.url], env, scaled(20_000));
      const line = await second.waitForStderr(/^decide: engine /);
      expect(line).not.toContain('released');
      expect((await ledger.chargeStates()).reserved).toBe(1);

      engine.open();
      const answer = await pending;
      expect(answer.status).toBe(200);
      expect(answer.body.access).toEqual({ type: 'free', freeRemaining: 19 });
      expect((await ledger.chargeStates()).reserved).toBeUndefined();
      const usage = await call(second.url, 'GET', '/v1/usage', { key });
      expect(usage.body).toMatchObject({ freeUsed: 1 });
      expect(await ledger.audit()).toEqual([]);
    } finally {
      engine.open();
    }
  });

  it('a key revoked through one server is refused at once by the other on every route, which had looked it up: 401, nothing charged or replayed', async () => {
    const env = openaiEnv(fake.url, 'sk-two-servers');
    const servers = await Promise.all([0, 1].map(() => startServe(['--db', ledger.url], env, scaled(20_000))));
    for (const server of servers) await server.waitForStderr(/^decide: engine /);
    const { key, passId } = await runJson(['key', 'create', '--create', '--db', ledger.url]);
    await runJson(['pass', 'fund', '--pass', passId, '--credits', '10', '--db', ledger.url]);

    // The first server looks the key up (and keeps it for a while) serving a decision, kept under an Idempotency-Key.
    const kept = { key, json: NOUL, headers: { 'Idempotency-Key': 'kept-answer' } };
    expect((await call(servers[0].url, 'POST', '/v1/decisions', kept)).status).toBe(200);
    expect((await call(servers[0].url, 'GET', '/v1/models', { key })).status).toBe(200);
    const asked = fake.requests.length;
    expect((await call(servers[1].url, 'DELETE', '/v1/key', { key })).status).toBe(200);

    for (const depth of ['standard', 'stress']) {
      const answer = await call(servers[0].url, 'POST', '/v1/decisions', { key, json: { ...NOUL, depth } });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('unauthorized');
    }
    const usage = await call(servers[0].url, 'GET', '/v1/usage', { key });
    expect(usage.status).toBe(401);
    expect(usage.body.code).toBe('unauthorized');
    expect((await call(servers[0].url, 'DELETE', '/v1/key', { key })).status).toBe(401);
    // Every route: the model list and a replay of the kept answer too.
    const models = await call(servers[0].url, 'GET', '/v1/models', { key });
    expect(models.status).toBe(401);
    const replay = await call(servers[0].url, 'POST', '/v1/decisions', kept);
    expect(replay.status).toBe(401);
    expect(replay.headers['idempotent-replayed']).toBeUndefined();

    // Only the decision before the revocation was charged (free); the credits are untouched.
    expect(await ledger.chargeStates()).toEqual({ committed: 1 });
    expect(await runJson(['pass', 'show', '--pass', passId, '--db', ledger.url])).toMatchObject({ passCredits: 10 });
    expect(await ledger.audit()).toEqual([]);
    expect(fake.requests).toHaveLength(asked); // the engine was not asked again
  });
});
