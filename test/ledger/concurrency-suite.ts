import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReserveOutcome, Store } from '../../src/ledger/store.js';
import { buildChild, startChild } from './child.js';
import type { ChildConfig, ChildReport } from './fixtures/ledger-child.js';
import { cleanup, IP, LIMITS, newCaller, NOW, tempDir } from './helpers.js';
import type { LedgerHarness } from './store-suite.js';
import { scaled } from '../support/time.js';
import type { Caller } from '../../src/contract/caller.js';

/**
 * Concurrent reserves never overspend: within one process, between two store
 * instances (two connections / pools), and between processes; and what a killed
 * process held comes back. Run against SQLite (sqlite-concurrency.test.ts) and
 * PostgreSQL (postgres-concurrency.test.ts); `location()` is what a child process
 * opens (the file, or the URL).
 */
export function concurrencySuite(h: LedgerHarness & { location(): string }): void {
  let store: Store;
  let caller: Caller;

  beforeEach(async () => {
    await h.create();
    store = await h.open();
    // 20 free decisions today + 10 credits: exactly 30 standard decisions can be had.
    caller = await newCaller(store);
    await store.passes.fund(caller.passId, 10, new Date());
  });
  afterEach(async () => {
    await store.close();
    await h.destroy();
  });

  const reserve = (s: Store) => s.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW);

  function tally(outcomes: ReserveOutcome[]) {
    const count = { free: 0, credits: 0, refused: {} as Record<string, number> };
    for (const out of outcomes) {
      if (out.ok) count[out.reservation.kind]++;
      else count.refused[out.code] = (count.refused[out.code] ?? 0) + 1;
    }
    return count;
  }

  describe(`${h.name}: in one process`, () => {
    it('150 concurrent reserves get exactly 20 free + 10 credits', async () => {
      const outcomes = await Promise.all(Array.from({ length: 150 }, () => reserve(store)));
      expect(tally(outcomes)).toEqual({ free: 20, credits: 10, refused: { insufficient_credits: 120 } });
      // Each access figure was handed out exactly once.
      const freeLeft = outcomes.flatMap((o) => (o.ok && o.access.type === 'free' ? [o.access.freeRemaining] : []));
      const creditsLeft = outcomes.flatMap((o) => (o.ok && o.access.type === 'pass' ? [o.access.passCredits] : []));
      expect(freeLeft.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(creditsLeft.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 0 });
      expect(await h.audit()).toEqual([]);
    });

    it('two store instances on one ledger share the guards', async () => {
      const second = await h.open();
      try {
        const outcomes = await Promise.all(Array.from({ length: 150 }, (_, i) => reserve(i % 2 ? second : store)));
        expect(tally(outcomes)).toEqual({ free: 20, credits: 10, refused: { insufficient_credits: 120 } });
        expect(await second.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 0 });
      } finally {
        await second.close();
      }
      expect(await h.audit()).toEqual([]);
    });

    it('concurrent reserves, commits and releases from two instances keep the books exact', async () => {
      const second = await h.open();
      await store.passes.fund(caller.passId, 40, new Date()); // 50 credits
      try {
        const settled = await Promise.all(
          Array.from({ length: 120 }, async (_, i) => {
            const s = i % 2 ? second : store;
            const out = await s.charges.reserve({ caller, depth: i % 3 ? 'standard' : 'stress', ip: IP }, NOW);
            if (!out.ok) return 0;
            if (i % 4 === 0) {
              await (i % 8 ? store : second).charges.release(out.reservation.id, NOW);
              return 0;
            }
            await s.charges.commit(out.reservation.id, NOW);
            return out.reservation.kind === 'credits' ? out.reservation.cost : 0;
          }),
        );
        const spent = settled.reduce((a, b) => a + b, 0);
        expect((await store.keys.usage(caller, NOW)).passCredits).toBe(50 - spent);
        expect((await h.chargeStates()).reserved).toBeUndefined();
      } finally {
        await second.close();
      }
      expect(await h.audit()).toEqual([]);
    });
  });

  describe(`${h.name}: across processes`, () => {
    let out: string;
    let entry: string;
    beforeAll(() => {
      out = tempDir();
      entry = buildChild(out);
    });
    afterAll(() => cleanup(out));

    const config = (extra: Partial<ChildConfig>): ChildConfig => ({
      mode: 'reserve',
      location: h.location(),
      limits: LIMITS,
      caller,
      reservedAt: NOW.toISOString(),
      ip: IP,
      ...extra,
    });

    async function runTogether(configs: ChildConfig[], alsoHere?: () => Promise<unknown>) {
      const children = configs.map((c) => startChild(entry, c));
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.go();
      const here = alsoHere?.();
      const results = await Promise.all(children.map((c) => c.finished));
      await here;
      return results.map((r) => r.report as ChildReport);
    }

    it('two processes and this one, racing for 30 decisions, get exactly 30', async () => {
      const outcomes: ReserveOutcome[] = [];
      const reports = await runTogether([config({ count: 400 }), config({ count: 400 })], async () => {
        for (let i = 0; i < 200; i++) {
          outcomes.push(await reserve(store));
          await new Promise((resolve) => setImmediate(resolve)); // let the children in
        }
      });
      const here = tally(outcomes);
      const free = reports[0].free + reports[1].free + here.free;
      const credits = reports[0].credits + reports[1].credits + here.credits;
      expect({ free, credits }).toEqual({ free: 20, credits: 10 });
      const refused = reports.reduce((n, r) => n + (r.refusals.insufficient_credits ?? 0), 0);
      expect(refused + (here.refused.insufficient_credits ?? 0)).toBe(1000 - 30);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 0 });
      expect(await h.chargeStates()).toEqual({ reserved: 30 });
      expect(await h.audit()).toEqual([]);
    });

    it('the processes really overlapped, and churn keeps the books exact', async () => {
      await store.passes.fund(caller.passId, 40, new Date()); // 50 credits
      const reports = await runTogether([
        // Each runs for at least a scaled 400 ms after the same start signal, so they
        // overlap even on a loaded machine (which the check below makes sure of).
        config({ count: 300, minMs: scaled(400), settle: 'churn', depth: 'standard' }),
        config({ count: 300, minMs: scaled(400), settle: 'churn', depth: 'stress' }),
      ]);
      const [a, b] = reports;
      expect(a.startedAt < b.endedAt && b.startedAt < a.endedAt).toBe(true);
      // Every reservation is settled; what was committed is exactly what is gone.
      const states = await h.chargeStates();
      expect(states.reserved).toBeUndefined();
      expect(states.committed + states.released).toBe(a.ok + b.ok);
      expect(await h.audit()).toEqual([]);
      // Counted by the children, not read back from the charges table.
      expect(await store.keys.usage(caller, NOW)).toEqual({
        freeUsed: a.committedFree + b.committedFree,
        passCredits: 50 - a.committedCredits - b.committedCredits,
      });
      expect(b.committedFree).toBe(0); // stress never touches the free allowance
      expect(a.committedFree).toBeGreaterThan(0);
    });

    it('a process killed while holding reservations: once they are left behind, recoverInterrupted gives everything back', async () => {
      const child = startChild(entry, config({ mode: 'crash' }));
      await child.ready;
      child.go();
      const { report, signal } = await child.finished;
      expect(signal).toBe('SIGKILL');
      const held = report as { free: ReserveOutcome; stress: ReserveOutcome; idem: { state: string } };
      expect(held.free).toMatchObject({ ok: true, reservation: { kind: 'free' }, access: { freeRemaining: 19 } });
      expect(held.stress).toMatchObject({ ok: true, reservation: { kind: 'credits', cost: 5 } });
      expect(held.idem).toEqual({ state: 'new' });

      await store.close();
      store = await h.open(); // as `decide serve` would at its next start
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 1, passCredits: 5 });
      expect(await store.idempotency.begin(caller.keyId, 'in-flight', 'hash', NOW)).toEqual({ state: 'in_progress' });

      await h.outliveLeases();
      expect(await store.recoverInterrupted()).toBe(2);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 10 });
      expect(await h.chargeStates()).toEqual({ released: 2 });
      expect(await store.idempotency.begin(caller.keyId, 'in-flight', 'hash', NOW)).toEqual({ state: 'new' });
      expect(await store.recoverInterrupted()).toBe(0);
      expect(await h.audit()).toEqual([]);
    });
  });
}
