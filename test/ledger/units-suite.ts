import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Limits, ReserveOutcome, Store } from '../../src/ledger/store.js';
import { IP, newCaller, NOW } from './helpers.js';
import type { LedgerHarness } from './store-suite.js';
import type { Caller } from '../../src/contract/caller.js';

/**
 * Several standard decisions paid together (the questions of one System One request),
 * for SQLite and PostgreSQL alike: storeSuite runs it inside its per-test ledger.
 */
export function unitsStoreSuite(h: LedgerHarness): void {
  let store: Store;
  const opened: Store[] = [];
  const open = async (limits: Partial<Limits> = {}) => {
    store = await h.open(limits);
    opened.push(store);
    return store;
  };
  beforeEach(() => open());
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  const units = (caller: Caller, n: number, ip = IP) => store.charges.reserve({ caller, depth: 'standard', ip, units: n }, NOW);
  const standard = (caller: Caller) => store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW);
  const okOf = (outcome: ReserveOutcome) => {
    if (!outcome.ok) throw new Error(`expected a reservation, got ${outcome.code}`);
    return outcome;
  };
  /** A key whose free allowance has `left` decisions today, on a pass holding `credits`. */
  async function callerWith(left: number, credits = 0) {
    const caller = await newCaller(store);
    if (credits > 0) await store.passes.fund(caller.passId, credits, new Date());
    for (let i = 0; i < 20 - left; i++) await store.charges.commit(okOf(await standard(caller)).reservation.id, NOW);
    return caller;
  }
  const kinds = async (id: string) =>
    h.rows<{ kind: string; state: string }>('SELECT kind, state FROM charges WHERE group_id = ? ORDER BY kind, state', [id]);

  it('takes one free unit per decision while the allowance lasts, all in one reservation', async () => {
    const caller = await callerWith(20);
    const r = okOf(await units(caller, 5));
    expect(r.reservation).toMatchObject({ kind: 'free', cost: 5 });
    expect(r.reservation.id).toMatch(/^res_[0-9A-Za-z]{22}$/);
    expect(r.access).toEqual({ type: 'free', freeRemaining: 15 });
    expect(await kinds(r.reservation.id)).toEqual(Array(5).fill({ kind: 'free', state: 'reserved' }));
    expect(await store.charges.commit(r.reservation.id, NOW)).toEqual({ charged: true });
    expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 5, passCredits: 0 });
    expect(await h.chargeStates()).toEqual({ committed: 5 });
    expect(await h.audit()).toEqual([]);
  });

  it('goes on to credits where the allowance ends, and says what the pass holds', async () => {
    const caller = await callerWith(3, 10);
    const r = okOf(await units(caller, 5));
    expect(r.reservation).toMatchObject({ kind: 'credits', cost: 5 });
    expect(r.access).toEqual({ type: 'pass', passCredits: 8 });
    expect(await kinds(r.reservation.id)).toEqual([
      ...Array(2).fill({ kind: 'credits', state: 'reserved' }),
      ...Array(3).fill({ kind: 'free', state: 'reserved' }),
    ]);
    expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 8 });
    expect(await h.audit()).toEqual([]);
  });

  it('a commit keeping fewer units gives back the rest in the same transaction, credits first', async () => {
    const caller = await callerWith(3, 10);
    const r = okOf(await units(caller, 5));
    const answers: string[] = [];
    const outcome = await store.charges.commit(r.reservation.id, NOW, {
      sample: { reservedAt: NOW, channel: 'api', ms: 12 },
      units: 4,
      answer: () => {
        answers.push('body');
        return '{}';
      },
    });
    expect(outcome).toEqual({ charged: true });
    expect(answers).toHaveLength(1);
    expect(await kinds(r.reservation.id)).toEqual([
      { kind: 'credits', state: 'committed' },
      { kind: 'credits', state: 'released' },
      ...Array(3).fill({ kind: 'free', state: 'committed' }),
    ]);
    expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 9 });

    // Kept fewer than the free units: the free ones not kept go back to the key too.
    const other = await callerWith(20);
    const two = okOf(await units(other, 3));
    await store.charges.commit(two.reservation.id, NOW, {
      sample: { reservedAt: NOW, channel: 'api', ms: 1 },
      units: 1,
      answer: () => '{}',
    });
    expect(await store.keys.usage(other, NOW)).toEqual({ freeUsed: 1, passCredits: 0 });
    // Committed: a second commit or a release changes nothing.
    expect(await store.charges.commit(two.reservation.id, NOW)).toEqual({ charged: true });
    await store.charges.release(two.reservation.id, NOW);
    expect(await store.keys.usage(other, NOW)).toEqual({ freeUsed: 1, passCredits: 0 });
    expect(await h.audit()).toEqual([]);
  });

  it('refuses the whole request when one unit cannot be paid, taking nothing', async () => {
    const never = await callerWith(3);
    expect(await units(never, 5)).toEqual({ ok: false, code: 'free_limit_reached' });
    const funded = await callerWith(3, 1);
    expect(await units(funded, 5)).toEqual({ ok: false, code: 'insufficient_credits' });
    expect(await store.keys.usage(never, NOW)).toEqual({ freeUsed: 17, passCredits: 0 });
    expect(await store.keys.usage(funded, NOW)).toEqual({ freeUsed: 17, passCredits: 1 });
    expect(await h.rows('SELECT id FROM charges WHERE group_id IS NOT NULL')).toEqual([]);
    // Exactly enough is enough.
    expect(okOf(await units(funded, 4)).access).toEqual({ type: 'pass', passCredits: 0 });
    expect(await h.audit()).toEqual([]);
  });

  it("the site's free limits hold back free units only: a pass pays past them, else 429 rate_limited", async () => {
    await open({ freePerIp: 2 });
    const caller = await newCaller(store);
    expect(await units(caller, 3)).toEqual({ ok: false, code: 'rate_limited' });
    await store.passes.fund(caller.passId, 1, new Date());
    const r = okOf(await units(caller, 3));
    expect(await kinds(r.reservation.id)).toEqual([
      { kind: 'credits', state: 'reserved' },
      ...Array(2).fill({ kind: 'free', state: 'reserved' }),
    ]);
    expect(await h.audit()).toEqual([]);
  });

  it('a release gives every unit back, once', async () => {
    const caller = await callerWith(2, 4);
    const r = okOf(await units(caller, 5));
    await store.charges.release(r.reservation.id, NOW);
    await store.charges.release(r.reservation.id, NOW);
    expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 18, passCredits: 4 });
    expect(await store.charges.commit(r.reservation.id, NOW)).toEqual({ charged: false, access: { type: 'pass', passCredits: 4 } });
    expect(await h.chargeStates()).toEqual({ committed: 18, released: 5 });
    expect(await h.audit()).toEqual([]);
  });

  it('a group left by a dead process is released whole, and counts as one reservation', async () => {
    const caller = await callerWith(20, 3);
    okOf(await units(caller, 4));
    await store.close();
    await h.outliveLeases();
    await open();
    expect(await store.recoverInterrupted()).toBe(1);
    expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 3 });
    expect(await h.audit()).toEqual([]);
  });

  it('refuses nonsense counts before anything is written', async () => {
    const caller = await callerWith(20, 10);
    await expect(units(caller, 0)).rejects.toThrow(/positive integer/);
    await expect(units(caller, 1.5)).rejects.toThrow(/positive integer/);
    await expect(store.charges.reserve({ caller, depth: 'stress', ip: IP, units: 2 }, NOW)).rejects.toThrow(/Only standard/);
    const r = okOf(await units(caller, 2));
    const answer = () => '{}';
    await expect(
      store.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: NOW, channel: 'api', ms: 1 }, units: 3, answer }),
    ).rejects.toThrow(/1 to 2 units/);
    await expect(
      store.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: NOW, channel: 'api', ms: 1 }, units: 0, answer }),
    ).rejects.toThrow(/1 to 2 units/);
    expect(await kinds(r.reservation.id)).toEqual(Array(2).fill({ kind: 'free', state: 'reserved' }));
  });
}
