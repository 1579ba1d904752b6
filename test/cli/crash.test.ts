import { describe, expect, it } from 'vitest';
import { audit, chargeStates } from '../ledger/helpers.js';
import { call } from '../support/api.js';
import { openaiEnv, runJson, startServe, useServeFixture, waitUntil } from '../support/cli.js';
import { CHOICE, NOUL } from '../support/requests.js';

describe('decide serve: a crash (kill -9) mid-decision and the restart', () => {
  const serve = useServeFixture();

  it('reservations of the killed process are released at the next start, and the books balance', async () => {
    const { fake, tmp } = serve;
    const env = openaiEnv(fake.url, 'sk-crash');
    const pass = await runJson(['pass', 'create', '--create', '--db', tmp.db]);
    await runJson(['pass', 'fund', '--pass', pass.passId, '--credits', '10', '--db', tmp.db]);
    const { key } = await runJson(['key', 'create', '--create', '--pass', pass.passId, '--db', tmp.db]);

    const first = await startServe(['--db', tmp.db], env);
    fake.respond(() => ({ hang: true }));
    fake.requests.length = 0;
    // A stress decision (5 credits) and a standard one (the free allowance), both stuck in the engine.
    const stress = call(first.url, 'POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } }).catch((e: Error) => e);
    const standard = call(first.url, 'POST', '/v1/decisions', { key, json: NOUL }).catch((e: Error) => e);
    const asked = (question: string) => fake.requests.some((r) => r.body?.messages && JSON.stringify(r.body).includes(question));
    await waitUntil(() => asked(CHOICE.question) && asked(NOUL.question), 'both decisions to reach the engine');

    // While it runs: both charges are reserved, 5 credits are out of the pass.
    expect(chargeStates(tmp.dir)).toEqual({ reserved: 2 });
    const during = await call(first.url, 'GET', '/v1/usage', { key });
    expect(during.body).toMatchObject({ passCredits: 5, freeUsed: 1, freeRemaining: 19 });

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The clients saw their connection die, not an answer.
    expect(await stress).toBeInstanceOf(Error);
    expect(await standard).toBeInstanceOf(Error);
    // The file as the crash left it: still reserved, and (reserved counted as spent) balanced.
    expect(chargeStates(tmp.dir)).toEqual({ reserved: 2 });
    expect(audit(tmp.dir)).toEqual([]);

    fake.respond();
    const second = await startServe(['--db', tmp.db], env);
    const line = await second.waitForStderr(/^decide: engine /);
    expect(line).toContain('released 2 interrupted reservations');

    const usage = await call(second.url, 'GET', '/v1/usage', { key });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ passCredits: 10, freeLimit: 20, freeUsed: 0, freeRemaining: 20 });
    expect(chargeStates(tmp.dir)).toEqual({ released: 2 });
    expect(audit(tmp.dir)).toEqual([]);

    // The restarted server decides normally on the recovered ledger.
    const res = await call(second.url, 'POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(200);
    expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(chargeStates(tmp.dir)).toEqual({ released: 2, committed: 1 });
    expect(audit(tmp.dir)).toEqual([]);

    // A clean stop after a clean run has nothing to release on the next start.
    expect(await second.stop()).toEqual({ code: 0, signal: null });
    const third = await startServe(['--db', tmp.db], env);
    const quiet = await third.waitForStderr(/^decide: engine /);
    expect(quiet).not.toContain('released');
  });
});
