import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPool, parsePostgresUrl, transaction } from '../../src/ledger/postgres/database.js';
import { openPostgresStore, type PostgresStore } from '../../src/ledger/postgres/store.js';
import { DAY, IP, LIMITS, newCaller, NOW } from './helpers.js';
import { PgLedger, withAdmin } from './postgres-helpers.js';

/**
 * PostgreSQL connections dropped under the store (`pg_terminate_backend`, as a restart
 * or a failover does): the process must not crash, a transaction that certainly did
 * not commit runs again, and the books stay balanced.
 */
describe('PostgreSQL: connections terminated under the store', () => {
  let ledger: PgLedger;
  let url: string;
  let appName: string;
  const closers: Array<() => Promise<unknown>> = [];
  beforeEach(() => {
    ledger = new PgLedger();
    // Our connections carry a name of their own, so only they are terminated.
    appName = `decide_faults_${ledger.schema}`;
    const u = new URL(ledger.url);
    u.searchParams.set('application_name', appName);
    url = u.toString();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await ledger.dispose();
  });

  const terminate = (pid?: number) =>
    withAdmin((c) =>
      c.query<{ n: number }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE application_name = $1 AND ($2::int IS NULL OR pid = $2)`,
        [appName, pid ?? null],
      ),
    );

  it('a connection terminated while lent out between two queries: no crash, the transaction runs again', async () => {
    await openPostgresStore(url, LIMITS, { sweepIntervalMs: 0 }).then((s) => s.close()); // the schema
    const pool = createPool(parsePostgresUrl(url), 2);
    closers.push(() => pool.end());
    let attempts = 0;
    const one = await transaction(pool, async (client) => {
      attempts++;
      if (attempts === 1) {
        const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
        expect((await terminate(pid)).rows[0].n).toBe(1);
        // The termination reaches this client while it runs no query: pg emits 'error' on it.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one;
    });
    expect(one).toBe(1);
    expect(attempts).toBe(2);
  });

  it('terminated after the work, before COMMIT was sent: it certainly did not commit, and runs again', async () => {
    await openPostgresStore(url, LIMITS, { sweepIntervalMs: 0 }).then((s) => s.close());
    const pool = createPool(parsePostgresUrl(url), 2);
    closers.push(() => pool.end());
    let attempts = 0;
    await transaction(pool, async (client) => {
      attempts++;
      await client.query(`INSERT INTO settings (name, value, created_at) VALUES ('fault.test', $1, now())`, [String(attempts)]);
      if (attempts === 1) {
        const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
        await terminate(pid);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    expect(attempts).toBe(2);
    expect(await ledger.rows(`SELECT value FROM settings WHERE name = 'fault.test'`)).toEqual([{ value: '2' }]);
  });

  it('every connection dropped again and again under load: no crash, nothing lost, the books balance', async () => {
    const store: PostgresStore = await openPostgresStore(url, LIMITS, { sweepIntervalMs: 0, poolSize: 4 });
    closers.push(() => store.close());
    const caller = await newCaller(store);
    await store.fundPass(caller.passId, 100_000);
    let charged = 0;
    let answered = 0;
    const failures: string[] = [];
    let stop = false;
    const dropper = (async () => {
      let rounds = 0;
      while (!stop) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        rounds += (await terminate()).rows[0].n > 0 ? 1 : 0;
      }
      return rounds;
    })();
    const worker = async (w: number) => {
      for (let i = 0; i < 60; i++) {
        try {
          const out = await store.reserve({ caller, depth: i % 3 === 0 ? 'stress' : 'standard', ip: IP, day: DAY }, NOW);
          if (!out.ok) throw new Error(out.code);
          if ((i + w) % 4 === 0) {
            await store.release(out.reservation.id, NOW);
            continue;
          }
          const done = await store.commit(out.reservation.id, NOW, {
            sample: { day: DAY, channel: 'api', ms: 5 },
            answer: () => '{}',
          });
          if (done.charged) charged++;
          answered++;
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    stop = true;
    const rounds = await dropper;
    expect(rounds).toBeGreaterThan(3);
    // A failure is a connection lost too often in a row, never anything else.
    for (const message of failures) expect(message).toMatch(/terminat|not queryable|Connection/i);
    expect(failures.length).toBeLessThan(24);
    const states = await ledger.chargeStates();
    // A commit that failed may have committed; one that answered says exactly what it did.
    expect(states.committed ?? 0).toBeGreaterThanOrEqual(charged);
    expect((states.committed ?? 0) - charged).toBeLessThanOrEqual(failures.length);
    expect((await store.metrics(DAY))[0].samples).toBe(states.committed ?? 0);
    expect(answered).toBe(charged);
    expect(await ledger.audit()).toEqual([]);
  });
});
