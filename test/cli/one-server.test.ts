import { describe, expect, it } from 'vitest';
import { chargeStates } from '../ledger/helpers.js';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runJson, startServe, useServeFixture, waitUntil } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { gate } from '../support/time.js';

/** One `decide serve` per SQLite file: a second one refuses to start, operators and restarts still work. */
describe('decide serve: one server per SQLite file', () => {
  const serve = useServeFixture();

  it('a second serve on a file a live server holds exits 69 and leaves its decisions alone; operator commands keep working', async () => {
    const { fake, tmp } = serve;
    const env = openaiEnv(fake.url, 'sk-one-server');
    const { key, passId } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
    const first = await startServe(['--db', tmp.db], env);
    // The first server's decision stays at the engine until the checks below are done.
    const engine = gate();
    fake.respond(() => ({ until: engine.promise }));
    const inFlight = call(first.url, 'POST', '/v1/decisions', { key, json: NOUL });
    inFlight.catch(() => {}); // awaited below; should a check fail first, the server's end is no unhandled rejection
    await waitUntil(() => fake.requests.length > 0, 'the decision to reach the engine');
    expect(chargeStates(tmp.dir)).toEqual({ reserved: 1 });

    const second = await runCli(['serve', '--port', '0', '--db', tmp.db], env);
    expect(second.code).toBe(69);
    expect(second.stderr).toContain(`another decide serve (process ${first.child.pid} on `);
    expect(second.stderr).toContain('one server per SQLite file');
    expect(second.stderr).not.toMatch(/^\s+at /m);
    // The first server's reservation was not touched, and its decision is charged as usual.
    expect(chargeStates(tmp.dir)).toEqual({ reserved: 1 });

    expect((await runJson(['pass', 'fund', '--pass', passId, '--credits', '3', '--db', tmp.db])).passCredits).toBe(3);
    expect((await runJson(['key', 'create', '--create', '--pass', passId, '--db', tmp.db])).passId).toBe(passId);

    engine.open();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(chargeStates(tmp.dir)).toEqual({ committed: 1 });

    // A clean stop gives the file up: the next server starts at once.
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    const third = await startServe(['--db', tmp.db], env);
    expect(await third.waitForStderr(/^decide: engine /)).not.toContain('released');
  });

  it('after a crash the next start takes the file over and recovers it', async () => {
    const { fake, tmp } = serve;
    const env = openaiEnv(fake.url, 'sk-one-server');
    const { key } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
    const first = await startServe(['--db', tmp.db], env);
    fake.respond(() => ({ hang: true }));
    void call(first.url, 'POST', '/v1/decisions', { key, json: NOUL }).catch(() => {});
    await waitUntil(() => fake.requests.length > 0, 'the decision to reach the engine');
    first.child.kill('SIGKILL');
    await first.exited;

    fake.respond();
    const next = await startServe(['--db', tmp.db], env);
    expect(await next.waitForStderr(/^decide: engine /)).toMatch(/, released 1 interrupted reservation($|,)/);
  });
});
