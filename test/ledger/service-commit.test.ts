import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../src/contract/index.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import type { Engine } from '../../src/engine/engine.js';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/ledger/postgres/store.js';
import type { Store } from '../../src/ledger/store.js';
import { DecisionService } from '../../src/service/service.js';
import { startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { NOUL } from '../support/requests.js';
import { chargeStates, cleanup, IP, LIMITS, newCaller, open as openSqlite, tempDir } from './helpers.js';
import { PgLedger } from './postgres-helpers.js';
import { eventually, scaled } from '../support/time.js';
import type { Caller } from '../../src/contract/caller.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * The service's commit, where the ledger meets the answer: what a decision whose
 * reservation expired before its commit answers (PostgreSQL, a tiny expiry margin), and
 * what a retry finds when the process died just before or just after the commit (both
 * ledgers). Real stores, a loopback System One fake, the service in process.
 */

let fake: SystemOneFake;
beforeAll(async () => {
  fake = await startSystemOneFake();
});
afterAll(() => fake.close());
afterEach(() => fake.reset());

const request = DecisionRequest.parse({ ...NOUL });
const stress = DecisionRequest.parse({ ...NOUL, depth: 'stress' });

function service(store: Store, engines: Engine[], warnings: string[] = []) {
  const engine = createSystemOneEngine({ baseUrl: fake.url, model: 'fake-systemone-1', timeoutMs: scaled(5_000) });
  engines.push(engine);
  return new DecisionService({ store, engine, limits: LIMITS, engineTimeoutMs: scaled(5_000), warn: (line) => warnings.push(line) });
}

const never = new Promise<never>(() => {});

/**
 * The store as a process that is killed around its commit: every call after the
 * commit (and, `landed: false`, the commit itself) never returns, as nothing returns
 * in a process that is gone. `committed` resolves once the commit is durable (or was
 * dropped).
 */
function dyingAt(store: Store, landed: boolean) {
  let dead = false;
  let markCommitted!: () => void;
  const committed = new Promise<void>((resolve) => (markCommitted = resolve));
  // Every concern of the store (store.charges, store.idempotency, …) dies with it.
  const dying = <T extends object>(concern: T): T =>
    new Proxy(concern, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value === 'object' && value !== null) return dying(value);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (dead) return never;
          if (target === store.charges && name === 'commit') {
            dead = true;
            if (!landed) {
              markCommitted();
              return never;
            }
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).then(() => {
              markCommitted();
              return never;
            });
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return { store: dying(store), committed };
}

interface Ledger {
  name: string;
  /** A store as one server (process) opens it. */
  open(options?: PostgresStoreOptions): Promise<Store>;
  committed(): Promise<number>;
  dispose(): Promise<void>;
}

const ledgers: Array<() => Ledger> = [
  () => {
    const dir = tempDir();
    return {
      name: 'SQLite',
      open: async () => openSqlite(dir),
      committed: async () => chargeStates(dir).committed ?? 0,
      dispose: async () => cleanup(dir),
    };
  },
  () => {
    const ledger = new PgLedger();
    return {
      name: 'PostgreSQL',
      // Leases that run out at once: what a dead server left is expired by the time the next one starts.
      open: (options = {}) =>
        openPostgresStore(ledger.url, LIMITS, { sweepIntervalMs: 0, decisionDeadlineMs: 1, expiryMarginMs: 0, ...options }),
      committed: async () => (await ledger.chargeStates()).committed ?? 0,
      dispose: () => ledger.dispose(),
    };
  },
];

for (const make of ledgers) {
  const { name } = make();
  const onPostgres = name === 'PostgreSQL';
  describe.skipIf(onPostgres && !POSTGRES)(`${name}: a server killed around its commit${onPostgres ? ` ${NEEDS_POSTGRES}` : ''}`, () => {
    let ledger: Ledger;
    const stores: Store[] = [];
    const engines: Engine[] = [];
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
      for (const e of engines.splice(0)) await e.close?.();
      await ledger.dispose();
    });
    const opened = async () => {
      const store = await ledger.open();
      stores.push(store);
      return store;
    };

    /** Server A takes the decision and dies at its commit; server B starts and gets the retry. */
    async function killedAtCommit(
      landed: boolean,
    ): Promise<{ b: Store; caller: Caller; retry: Awaited<ReturnType<DecisionService['decide']>> }> {
      ledger = make();
      const a = await opened();
      const caller = await newCaller(a);
      const dying = dyingAt(a, landed);
      void service(dying.store, engines).decide(request, { caller, channel: 'api', ip: IP, idempotencyKey: 'retry-me' });
      await dying.committed;
      await new Promise((resolve) => setTimeout(resolve, 20)); // PostgreSQL: its leases run out
      const b = await opened();
      await b.recoverInterrupted();
      const retry = await service(b, engines).decide(request, { caller, channel: 'api', ip: IP, idempotencyKey: 'retry-me' });
      return { b, caller, retry };
    }

    it('dies right after the commit: the retry replays the answer, charged once', async () => {
      const { b, caller, retry } = await killedAtCommit(true);
      expect(retry.replayed).toBe(true);
      expect(retry.response.access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(await b.keys.usage(caller, new Date())).toEqual({ freeUsed: 1, passCredits: 0 });
      expect(await ledger.committed()).toBe(1);
    });

    it('dies just before the commit: the retry runs afresh, charged once', async () => {
      const before = fake.requests.length;
      const { b, caller, retry } = await killedAtCommit(false);
      expect(retry.replayed).toBe(false);
      expect(fake.requests.length - before).toBe(2); // the engine was asked again
      expect(retry.response.access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(await b.keys.usage(caller, new Date())).toEqual({ freeUsed: 1, passCredits: 0 });
      expect(await ledger.committed()).toBe(1);
    });
  });
}

describe.skipIf(!POSTGRES)(`PostgreSQL, a tiny expiry margin: a decision that outlives its reservation ${NEEDS_POSTGRES}`, () => {
  let ledger: PgLedger;
  const stores: Store[] = [];
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const e of engines.splice(0)) await e.close?.();
    await ledger.dispose();
  });

  it('is served without a charge, its access says what the caller still holds, and the operator is told', async () => {
    ledger = new PgLedger();
    // Reservations expire 1 ms after they are taken; this server itself sweeps every 20 ms.
    const store = await openPostgresStore(ledger.url, LIMITS, { decisionDeadlineMs: 1, expiryMarginMs: 0, sweepIntervalMs: 20 });
    stores.push(store);
    const warnings: string[] = [];
    const svc = service(store, engines, warnings);
    const caller = await newCaller(store);
    await store.passes.fund(caller.passId, 10, new Date());
    const now = new Date();
    // The engine answers each decision only once the sweep has released its reservation.
    const swept = (n: number) =>
      eventually(async () => ((await ledger.chargeStates()).released ?? 0) >= n, `${n} reservation(s) released by the sweep`);

    fake.respond(() => ({ until: swept(1) }));
    const free = await svc.decide(request, { caller, channel: 'api', ip: IP });
    expect(free.response.access).toEqual({ type: 'free', freeRemaining: 20, charged: false });
    fake.respond(() => ({ until: swept(2) }));
    const paid = await svc.decide(stress, { caller, channel: 'api', ip: IP });
    expect(paid.response.access).toEqual({ type: 'pass', passCredits: 10, charged: false });
    expect(await store.keys.usage(caller, now)).toEqual({ freeUsed: 0, passCredits: 10 });
    expect(await ledger.chargeStates()).toEqual({ released: 2 });
    expect(await ledger.audit()).toEqual([]);

    // Served all the same: samples of the metrics, counted as served without a charge.
    expect((await svc.metrics()).api).toMatchObject({ samples: 2, uncharged: 2 });
    expect(free.response.timing.samplesToday).toBe(1);

    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^served a decision without a charge: its reservation chg_\w+ \(free, 1, key dcd_api_…\w{4}\) expired/);
    expect(warnings[0]).toContain('DECIDE_EXPIRY_MARGIN_MS');
    expect(warnings[1]).toMatch(/\(credits, 5, key /);
  });

  it('committed before the sweep: charged once, as reserved', async () => {
    ledger = new PgLedger();
    const store = await openPostgresStore(ledger.url, LIMITS, { decisionDeadlineMs: 60_000, expiryMarginMs: 0, sweepIntervalMs: 20 });
    stores.push(store);
    const warnings: string[] = [];
    const svc = service(store, engines, warnings);
    const caller = await newCaller(store);
    const answer = await svc.decide(request, { caller, channel: 'api', ip: IP });
    expect(answer.response.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(await ledger.chargeStates()).toEqual({ committed: 1 });
    expect(warnings).toEqual([]);
  });
});
