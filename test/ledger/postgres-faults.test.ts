import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPool, parsePostgresUrl, transaction } from '../../src/ledger/postgres/database.js';
import { openPostgresStore, type PostgresStore } from '../../src/ledger/postgres/store.js';
import { IP, LIMITS, newCaller, NOW } from './helpers.js';
import { PgLedger, withAdmin } from './postgres-helpers.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * PostgreSQL connections dropped under the store (`pg_terminate_backend`, as a restart
 * or a failover does): the process must not crash, a transaction that certainly did
 * not commit runs again, and the books stay balanced.
 */
describe.skipIf(!POSTGRES)(`PostgreSQL: connections terminated under the store ${NEEDS_POSTGRES}`, () => {
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
    await store.passes.fund(caller.passId, 100_000, new Date());
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
          const out = await store.charges.reserve({ caller, depth: i % 3 === 0 ? 'stress' : 'standard', ip: IP }, NOW);
          if (!out.ok) throw new Error(out.code);
          if ((i + w) % 4 === 0) {
            await store.charges.release(out.reservation.id, NOW);
            continue;
          }
          const done = await store.charges.commit(out.reservation.id, NOW, {
            sample: { reservedAt: NOW, channel: 'api', ms: 5 },
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
    for (const message of failures) expect(message).toMatch(/terminat|not queryable|Connection|cannot be reached/i);
    expect(failures.length).toBeLessThan(24);
    const states = await ledger.chargeStates();
    // A commit that failed may have committed; one that answered says exactly what it did.
    expect(states.committed ?? 0).toBeGreaterThanOrEqual(charged);
    expect((states.committed ?? 0) - charged).toBeLessThanOrEqual(failures.length);
    expect((await store.metrics.day(NOW))[0].samples).toBe(states.committed ?? 0);
    expect(answered).toBe(charged);
    expect(await ledger.audit()).toEqual([]);
  });
});

/**
 * The database away altogether (a restart, a network cut): a loopback TCP relay in
 * front of PostgreSQL that the test cuts and restores, so the store's own retries run
 * out against a real refused connection.
 */
describe.skipIf(!POSTGRES)(`PostgreSQL: the database away ${NEEDS_POSTGRES}`, () => {
  it('a request that cannot reach the database answers 503 ledger_unavailable with Retry-After, and works again once it is back', async () => {
    const ledger = new PgLedger();
    const relay = await startRelay(new URL(ledger.url));
    const u = new URL(ledger.url);
    u.host = `127.0.0.1:${relay.port}`;
    const store = await openPostgresStore(u.toString(), LIMITS, { sweepIntervalMs: 0, poolSize: 2 });
    try {
      const caller = await newCaller(store);
      relay.cut();
      const failure = await store.keys.usage(caller, NOW).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'ledger_unavailable', status: 503, retryAfter: 2 });
      expect((failure as Error).message).toMatch(/cannot be reached.*nothing was charged/);
      await expect(store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW)).rejects.toMatchObject({ code: 'ledger_unavailable' });
      await expect(store.calibrations.list()).rejects.toMatchObject({ code: 'ledger_unavailable' });

      await relay.restore();
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 0 });
    } finally {
      await store.close();
      await relay.close();
      await ledger.dispose();
    }
  });
});

async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    /** Drops every connection and refuses new ones. */
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
    restore: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

describe.skipIf(!POSTGRES)(`PostgreSQL: one hot pass ${NEEDS_POSTGRES}`, () => {
  it('reserves queued on one pass row lock leave the pool to every other pass', async () => {
    const ledger = new PgLedger();
    const store = await openPostgresStore(ledger.url, LIMITS, { sweepIntervalMs: 0, poolSize: 3 });
    try {
      const hot = await newCaller(store);
      await store.passes.fund(hot.passId, 100, new Date());
      const other = await newCaller(store);
      // Something else (another server's long transaction) holds the hot pass's row until told.
      let letGo!: () => void;
      const released = new Promise<void>((resolve) => (letGo = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = withAdmin(async (client) => {
        await client.query(`SET search_path TO ${ledger.schema}`);
        await client.query('BEGIN');
        await client.query('SELECT 1 FROM passes WHERE id = $1 FOR UPDATE', [hot.passId]);
        locked();
        await released;
        await client.query('COMMIT');
      });
      await lockTaken;
      const burst = Array.from({ length: 10 }, () => store.charges.reserve({ caller: hot, depth: 'stress', ip: IP }, NOW));
      // With the burst waiting on the row, a reserve of an unrelated pass still gets a
      // connection: were the pool's 3 all queued on the hot row, this would wait forever.
      const unrelated = await store.charges.reserve({ caller: other, depth: 'standard', ip: IP }, NOW);
      expect(unrelated.ok).toBe(true);
      letGo();

      await holder;
      const outcomes = await Promise.all(burst);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
      expect((await store.passes.show(hot.passId))!.passCredits).toBe(50);
    } finally {
      await store.close();
      await ledger.dispose();
    }
  });
});
