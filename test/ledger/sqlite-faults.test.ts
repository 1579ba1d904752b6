import { afterEach, describe, expect, it } from 'vitest';
import { CHOICE, NOUL } from '../support/requests.js';
import { killChildren, waitUntil } from '../support/cli.js';
import { startWithSystemOne } from '../support/service.js';
import { eventually, gate, scaled } from '../support/time.js';
import { holdLock } from './lock-holder.js';
import { chargeStates, IP, newCaller } from './helpers.js';

/**
 * The SQLite ledger when the file itself misbehaves: another process holding the
 * write lock (an operator's sqlite3 shell, a backup), a release that cannot land, a
 * reservation that outlives its decision. Real service, real file, a real second
 * process holding the lock, and a System One fake.
 */

type Svc = Awaited<ReturnType<typeof startWithSystemOne>>;
const running: Svc[] = [];
afterEach(async () => {
  await killChildren();
  for (const svc of running.splice(0)) await svc.close();
});

async function start(options: Parameters<typeof startWithSystemOne>[0] = {}): Promise<Svc> {
  const svc = await startWithSystemOne(options);
  running.push(svc);
  return svc;
}

const decide = (svc: Svc, key: string, body: object, idem?: string) =>
  svc.call('POST', '/v1/decisions', { key, json: body, headers: idem ? { 'idempotency-key': idem } : {} });
/** A decision whose end is awaited later: should a check fail first, its end is no unhandled rejection. */
const started = (answer: ReturnType<typeof decide>) => {
  answer.catch(() => {});
  return answer;
};
const usage = async (svc: Svc, key: string) => (await svc.call('GET', '/v1/usage', { key })).body;

describe('SQLite: a lock held by another process', () => {
  it('a commit that cannot get the lock answers 503 ledger_unavailable, and the charges come back soon after the lock goes', async () => {
    // The lock wait is meant to run out (at the commits); nothing else waits for the lock.
    const svc = await start({ ledger: { lockWaitMs: 300 } });
    const { key } = await svc.newKey(10);
    // The engine answers once another process holds the file.
    const engine = gate();
    svc.fake.respond(() => ({ until: engine.promise }));
    const stress = started(decide(svc, key, { ...CHOICE, depth: 'stress' }, 'retry-stress'));
    const free = started(decide(svc, key, NOUL, 'retry-free'));
    // Both reserved and asking the engine: now another process takes the file.
    const asked = (context: string) => svc.fake.requests.some((r) => r.body?.state === context);
    await waitUntil(() => asked(CHOICE.context) && asked(NOUL.context), 'both decisions at the engine');
    const lock = await holdLock(svc.dbPath).finally(() => engine.open());

    for (const res of [await stress, await free]) {
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('ledger_unavailable');
      expect(res.body.error).toMatch(/locked by another process.*nothing was charged/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(lock.holding).toBe(true);
    // Reads still work under the lock: the reservations are still held.
    expect(await usage(svc, key)).toMatchObject({ freeUsed: 1, passCredits: 5 });

    await lock.release();
    await waitUntilAsync(async () => {
      const now = await usage(svc, key);
      return now.freeUsed === 0 && now.passCredits === 10;
    }, 'the reservations given back');
    expect(svc.logs.some((line) => /"level":"error"/.test(line))).toBe(false);

    // The retries under the same Idempotency-Key run afresh (never 409 forever) and are charged once.
    await waitUntilAsync(async () => (await decide(svc, key, NOUL, 'retry-free')).status === 200, 'the free retry to go through');
    const retried = await decide(svc, key, { ...CHOICE, depth: 'stress' }, 'retry-stress');
    expect(retried.status).toBe(200);
    expect(await usage(svc, key)).toMatchObject({ freeUsed: 1, passCredits: 5 });
  });

  it('no route waits on the lock: metrics, usage, pages and MCP answer while a decision waits for it', async () => {
    // The decision waits for the lock for as long as the test holds it: this wait must not run out.
    const svc = await start({ ledger: { lockWaitMs: scaled(20_000) } });
    const { key } = await svc.newKey();
    const lock = await holdLock(svc.dbPath);
    let decided = false;
    const waiting = started(decide(svc, key, NOUL)).then((res) => {
      decided = true;
      return res;
    });

    const metrics = await svc.call('GET', '/v1/metrics');
    expect(metrics.status).toBe(200);
    expect((await svc.call('GET', '/v1/usage', { key })).status).toBe(200);
    expect((await svc.call('GET', '/')).status).toBe(200);
    const mcp = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(mcp.status).toBe(200);
    // All of that answered with the lock still held and the decision still waiting for it.
    expect(lock.holding).toBe(true);
    expect(decided).toBe(false);

    await lock.release();
    expect((await waiting).status).toBe(200);
  });
});

describe('SQLite: what a failed give-back leaves is swept', () => {
  it('a reservation past its expiry is released and a lapsed Idempotency-Key record dropped, without a restart', async () => {
    const svc = await start({ ledger: { decisionDeadlineMs: 1, expiryMarginMs: 0, sweepIntervalMs: 20 } });
    const caller = await newCaller(svc.store);
    await svc.store.passes.fund(caller.passId, 10, new Date());
    // As a server whose release never landed leaves them: reserved, then forgotten.
    const taken = await svc.store.charges.reserve({ caller, depth: 'stress', ip: IP }, new Date());
    expect(taken.ok).toBe(true);
    expect(await svc.store.idempotency.begin(caller.keyId, 'stuck', 'h', new Date())).toEqual({ state: 'new' });
    expect(await svc.store.idempotency.begin(caller.keyId, 'stuck', 'h', new Date())).toEqual({ state: 'in_progress' });

    await svc.store.recoverInterrupted(); // as `decide serve` does: from now on it sweeps
    await svc.store.passes.fund(caller.passId, 1, new Date());
    const pass = async () => (await svc.store.passes.show(caller.passId))!.passCredits;
    await waitUntilAsync(async () => (await pass()) === 11, 'the expired reservation released');
    await waitUntilAsync(
      async () => (await svc.store.idempotency.begin(caller.keyId, 'stuck', 'h', new Date())).state === 'new',
      'the record dropped',
    );
  });

  it('a decision that outlives its reservation is served without a charge, says so in access, and is counted in metrics', async () => {
    const svc = await start({ ledger: { decisionDeadlineMs: 1, expiryMarginMs: 0, sweepIntervalMs: 20 } });
    await svc.store.recoverInterrupted();
    const { key } = await svc.newKey(10);
    // The engine answers each decision only once the sweep has released its reservation.
    const swept = (n: number) => eventually(() => (chargeStates(svc.dir).released ?? 0) >= n, `${n} reservation(s) released by the sweep`);
    svc.fake.respond(() => ({ until: swept(1) }));
    const free = await decide(svc, key, NOUL);
    expect(free.status).toBe(200);
    expect(free.body.access).toEqual({ type: 'free', freeRemaining: 20, charged: false });
    svc.fake.respond(() => ({ until: swept(2) }));
    const paid = await decide(svc, key, { ...NOUL, depth: 'stress' });
    expect(paid.body.access).toEqual({ type: 'pass', passCredits: 10, charged: false });
    expect(await usage(svc, key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
    const metrics = (await svc.call('GET', '/v1/metrics')).body;
    expect(metrics.api).toMatchObject({ samples: 2, uncharged: 2 });
    expect(metrics.overall.uncharged).toBe(2);
  });
});

/** Polls an async probe every 50 ms until it holds (for up to a scaled 15 s). */
function waitUntilAsync(probe: () => Promise<boolean>, what: string): Promise<void> {
  return eventually(probe, what, { timeoutMs: scaled(15_000), everyMs: 50 });
}
