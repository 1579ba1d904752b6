import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { audit, chargeStates, cleanup, IP, newCaller, NOW, open, tempDir } from './helpers.js';

// Reserves and commits asked for in one turn share a transaction (group-commit.ts):
// the books must read as if each had its own.
describe('SQLite: writes of one turn share a transaction', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(() => {
    dir = tempDir();
    store = open(dir, { freePerKey: 0 });
  });
  afterEach(async () => {
    await store.close();
    cleanup(dir);
  });

  it('a reserve that fails fails alone; the others of its turn are charged once each', async () => {
    const caller = await newCaller(store);
    await store.passes.fund(caller.passId, 3, new Date());
    const ghost = { ...caller, passId: 'pass_missing' };
    const asked = [caller, ghost, caller, caller, caller].map((who) =>
      store.charges.reserve({ caller: who, depth: 'standard', ip: IP }, NOW),
    );
    const settled = await Promise.allSettled(asked);
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/does not exist/) } });
    const outcomes = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
    // Three credits: three reserves pass, in the order asked, and the fourth finds none left.
    expect(outcomes.map((o) => (o.ok ? o.access : o.code))).toEqual([
      { type: 'pass', passCredits: 2 },
      { type: 'pass', passCredits: 1 },
      { type: 'pass', passCredits: 0 },
      'insufficient_credits',
    ]);

    const ids = outcomes.flatMap((o) => (o.ok ? [o.reservation.id] : []));
    const committed = await Promise.all([
      store.charges.commit(ids[0], NOW),
      store.charges.commit('chg_unknown', NOW),
      store.charges.commit(ids[1], NOW),
      store.charges.release(ids[2], NOW),
    ]);
    expect(committed).toEqual([{ charged: true }, { charged: false, access: null }, { charged: true }, undefined]);
    expect((await store.keys.usage(caller, NOW)).passCredits).toBe(1);
    expect(chargeStates(dir)).toEqual({ committed: 2, released: 1 });
    expect(audit(dir)).toEqual([]);
  });

  it('a reserve of several units refused in a shared turn rolls back its own units only', async () => {
    const caller = await newCaller(store);
    await store.passes.fund(caller.passId, 3, new Date());
    const asked = [2, 2, 1].map((units) => store.charges.reserve({ caller, depth: 'standard', ip: IP, units }, NOW));
    const outcomes = await Promise.all(asked);
    expect(outcomes.map((o) => (o.ok ? [o.reservation.cost, o.access] : o.code))).toEqual([
      [2, { type: 'pass', passCredits: 1 }],
      'insufficient_credits',
      [1, { type: 'pass', passCredits: 0 }],
    ]);
    const [group, , single] = outcomes.map((o) => (o.ok ? o.reservation.id : ''));
    const sample = { reservedAt: NOW, channel: 'api' as const, ms: 3 };
    // In one turn: the group keeps one unit of two (the other given back), the single is committed.
    const committed = await Promise.all([
      store.charges.commit(group, NOW, { sample, units: 1, answer: () => '{}' }),
      store.charges.commit(single, NOW, { sample, answer: () => '{}' }),
    ]);
    expect(committed).toEqual([{ charged: true }, { charged: true }]);
    expect((await store.keys.usage(caller, NOW)).passCredits).toBe(1);
    expect(chargeStates(dir)).toEqual({ committed: 2, released: 1 });
    expect(audit(dir)).toEqual([]);
  });
});
