import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/contract/key.js';
import { KeyNotActive } from '../../src/ledger/keys.js';
import type {
  Calibration,
  CommitOutcome,
  CreatedKey,
  Evaluation,
  Limits,
  ReserveOutcome,
  ReserveRequest,
  Settlement,
  Store,
} from '../../src/ledger/store.js';
import { DAY, IP, NEXT, newCaller, NOW } from './helpers.js';
import { unitsStoreSuite } from './units-suite.js';
import { webStoreSuite } from './web-suite.js';
import { dashboardStoreSuite } from './dashboard-suite.js';
import { operatorStoreSuite } from './operator-suite.js';
import { decisionLogSuite } from './decisions-suite.js';
import type { Caller, Channel } from '../../src/contract/caller.js';

/**
 * What one ledger implementation gives the conformance suite. Each test gets a fresh,
 * empty ledger (`create`) and loses it after (`destroy`); everything the suite reads
 * behind the store's back goes through `rows`, in SQL both databases read alike
 * (`?` placeholders, counts cast to INTEGER; timestamps come back as ISO strings).
 */
export interface LedgerHarness {
  name: string;
  create(): Promise<void>;
  destroy(): Promise<void>;
  /** A store on the test's ledger, with the suite's default limits overridden by `limits`. */
  open(limits?: Partial<Limits>): Promise<Store>;
  rows<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Writes behind the store's back (to show the audit catches it). */
  exec(sql: string, params?: unknown[]): Promise<void>;
  audit(): Promise<string[]>;
  chargeStates(): Promise<Record<string, number>>;
  /**
   * Lets every lease now in the ledger run out: its reservations and running
   * idempotency records become what a process that died left behind. SQLite: nothing
   * to do (at a serve's start, any reservation is one); PostgreSQL: their expiry passes.
   */
  outliveLeases(): Promise<void>;
  /** Every byte a reader of the ledger could find (file and WAL, or every value of every table). */
  everything(): Promise<Buffer>;
}

/**
 * The `Store` contract, one table of tests for every implementation: test/ledger/sqlite.test.ts
 * and test/ledger/postgres.test.ts run it. What only one implementation has (WAL and
 * pragmas, migrations, expiry) is tested beside it, in those files.
 */
export function storeSuite(h: LedgerHarness): void {
  let store: Store;
  const opened: Store[] = [];
  /** Opens a store, closed after the test; the latest one is `store`. */
  const open = async (limits: Partial<Limits> = {}) => {
    store = await h.open(limits);
    opened.push(store);
    return store;
  };

  beforeEach(() => h.create());
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await h.destroy();
  });

  const standard = (caller: Caller, ip = IP, now = NOW) => store.charges.reserve({ caller, depth: 'standard', ip }, now);
  const stress = (caller: Caller) => store.charges.reserve({ caller, depth: 'stress', ip: IP }, NOW);
  const count = async (table: string) => (await h.rows<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0].n;

  /** A decision served through the real path: reserved on a key of its own, then committed with its processing time as the sample. */
  async function served(ms: number, channel: Channel = 'api', at = NOW) {
    const reserved = okOf(await standard(await newCaller(store), IP, at));
    await store.charges.commit(reserved.reservation.id, at, { sample: { reservedAt: at, channel, ms }, answer: () => '{}' });
  }

  /** A decision finishing under `idemKey`: its commit keeps `body` for replays, as the service's does. */
  async function decidedUnder(caller: Caller, idemKey: string, body: string) {
    const reserved = okOf(await standard(caller));
    return store.charges.commit(reserved.reservation.id, NOW, {
      sample: { reservedAt: NOW, channel: 'api', ms: 1 },
      idempotency: { keyId: caller.keyId, idemKey },
      answer: () => body,
    });
  }

  function okOf(outcome: ReserveOutcome) {
    if (!outcome.ok) throw new Error(`expected a reservation, got ${outcome.code}`);
    return outcome;
  }

  /** Uses up the key's free allowance for DAY. */
  async function exhaustFree(caller: Caller, n = 20) {
    for (let i = 0; i < n; i++) expect(okOf(await standard(caller)).reservation.kind).toBe('free');
  }

  describe(`${h.name}: opening`, () => {
    it('reopening keeps the data', async () => {
      await open();
      const { passId } = await store.passes.create(new Date());
      await store.passes.fund(passId, 7, new Date());
      await store.close();
      await open();
      expect((await store.passes.show(passId))?.passCredits).toBe(7);
    });

    it('rejects limits that are not non-negative integers', async () => {
      await expect(h.open({ freePerIp: -1 })).rejects.toThrow(/freePerIp/);
      await expect(h.open({ freePerKey: 1.5 })).rejects.toThrow(/freePerKey/);
    });
  });

  describe(`${h.name}: passes and keys`, () => {
    beforeEach(() => open());

    it('creates a key on a new pass, lists it by hint and authenticates its fingerprint', async () => {
      const created = await store.keys.create(new Date());
      expect(created.key).toMatch(/^dcd_api_[0-9A-Za-z]{49}$/);
      expect(created.keyHint).toBe(`dcd_api_…${created.key.slice(-4)}`);
      expect(created.keyId).toMatch(/^key_[0-9A-Za-z]{22}$/);
      expect(created.passId).toMatch(/^pass_[0-9A-Za-z]{22}$/);
      expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const pass = await store.passes.show(created.passId);
      expect(pass).toEqual({
        passId: created.passId,
        passCredits: 0,
        fundedEver: false,
        createdAt: created.createdAt,
        keys: [{ id: created.keyId, keyHint: created.keyHint, createdAt: created.createdAt, revokedAt: null }],
      });

      expect(await store.keys.authenticate(keyFingerprint(created.key))).toEqual({
        keyId: created.keyId,
        passId: created.passId,
        keyHint: created.keyHint,
      });
      expect(await store.keys.authenticate(keyFingerprint(created.key + 'x'))).toBeNull();
    });

    it('links a second key to an existing pass and refuses an unknown pass without writing', async () => {
      const first = await store.keys.create(new Date());
      const second = await store.keys.create(new Date(), first.passId);
      expect(second.passId).toBe(first.passId);
      expect((await store.passes.show(first.passId))?.keys.map((k) => k.id).sort()).toEqual([first.keyId, second.keyId].sort());

      await expect(store.keys.create(new Date(), 'pass_doesnotexist')).rejects.toThrow(/does not exist/);
      expect(await count('keys')).toBe(2);
      expect(await count('passes')).toBe(1);
    });

    it('lists a pass’s keys oldest first', async () => {
      const first = await store.keys.create(new Date());
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await store.keys.create(new Date(), first.passId);
      expect((await store.passes.show(first.passId))?.keys.map((k) => k.id)).toEqual([first.keyId, second.keyId]);
    });

    it('revokes a key once; a revoked key no longer authenticates', async () => {
      const created = await store.keys.create(new Date());
      const at = new Date('2026-11-22T12:34:56.789Z');
      expect(await store.keys.revoke(created.keyId, at)).toEqual({
        keyHint: created.keyHint,
        revokedAt: '2026-11-22T12:34:56.789Z',
      });
      expect(await store.keys.authenticate(keyFingerprint(created.key))).toBeNull();
      expect(await store.keys.revoke(created.keyId, new Date())).toBeNull();
      expect(await store.keys.revoke('key_unknown', new Date())).toBeNull();
      expect((await store.passes.show(created.passId))?.keys[0].revokedAt).toBe('2026-11-22T12:34:56.789Z');
    });

    it('funds a pass with entry rows and refuses bad amounts and unknown passes', async () => {
      const { passId, createdAt } = await store.passes.create(new Date());
      expect(createdAt).toMatch(/Z$/);
      expect(await store.passes.fund(passId, 10, new Date(), 'invoice 1')).toEqual({ passCredits: 10 });
      expect(await store.passes.fund(passId, 5, new Date())).toEqual({ passCredits: 15 });
      const pass = await store.passes.show(passId);
      expect(pass?.passCredits).toBe(15);
      expect(pass?.fundedEver).toBe(true);

      for (const bad of [0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.passes.fund(passId, bad, new Date())).rejects.toThrow(/positive integer/);
      }
      await expect(store.passes.fund('pass_nope', 3, new Date())).rejects.toThrow(/does not exist/);

      const rows = await h.rows('SELECT pass_id, credits, note FROM fundings ORDER BY credits');
      expect(rows).toEqual([
        { pass_id: passId, credits: 5, note: null },
        { pass_id: passId, credits: 10, note: 'invoice 1' },
      ]);
      expect(await h.audit()).toEqual([]);
    });

    it('shows null for an unknown pass', async () => {
      expect(await store.passes.show('pass_nope')).toBeNull();
    });

    it('reports usage: today’s free use of the key and the pass balance', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 4, new Date());
      await standard(caller);
      await standard(caller);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 2, passCredits: 4 });
      expect(await store.keys.usage(caller, NEXT)).toEqual({ freeUsed: 0, passCredits: 4 });
      await expect(store.keys.usage(caller, new Date('2026-11-22T25:00'))).rejects.toThrow(/Invalid time value/);
    });

    it('a key revoked once it was looked up: gone at once where it was revoked, and nothing is done for its callers anywhere', async () => {
      const here = store;
      const created = await here.keys.create(new Date());
      await here.passes.fund(created.passId, 10, new Date());
      const fingerprint = keyFingerprint(created.key);
      const caller = (await here.keys.authenticate(fingerprint))!;
      const other = await open();
      expect(await other.keys.authenticate(fingerprint)).toEqual(caller);

      // Revoked through the other instance (another server): this one's caller is refused by every act.
      expect(await other.keys.revoke(caller.keyId, NOW)).not.toBeNull();
      expect(await other.keys.authenticate(fingerprint)).toBeNull();
      const reserve = (request: Omit<ReserveRequest, 'caller' | 'ip'>) => here.charges.reserve({ caller, ip: IP, ...request }, NOW);
      expect(await reserve({ depth: 'standard' })).toEqual({ ok: false, code: 'key_revoked' });
      expect(await reserve({ depth: 'stress' })).toEqual({ ok: false, code: 'key_revoked' });
      expect(await reserve({ depth: 'standard', units: 3 })).toEqual({ ok: false, code: 'key_revoked' });
      await expect(here.keys.usage(caller, NOW)).rejects.toBeInstanceOf(KeyNotActive);
      expect(await here.keys.revoke(caller.keyId, NOW)).toBeNull();

      // Nothing was taken: the free allowance and the credits are as they were.
      expect(await count('charges')).toBe(0);
      expect((await here.passes.show(caller.passId))?.passCredits).toBe(10);
      expect(await count('free_usage')).toBe(0);
      expect(await h.audit()).toEqual([]);
    });
  });

  describe(`${h.name}: reserve, standard depth`, () => {
    beforeEach(() => open());

    it('spends the free allowance first, counting down freeRemaining', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 3, new Date());
      const first = okOf(await standard(caller));
      expect(first.reservation).toMatchObject({ kind: 'free', cost: 1 });
      expect(first.reservation.id).toMatch(/^chg_[0-9A-Za-z]{22}$/);
      expect(first.access).toEqual({ type: 'free', freeRemaining: 19 });
      for (let i = 2; i <= 19; i++) await standard(caller);
      expect(okOf(await standard(caller)).access).toEqual({ type: 'free', freeRemaining: 0 });
      expect((await store.keys.usage(caller, NOW)).passCredits).toBe(3); // credits untouched by free use
    });

    it('after the free allowance: 1 credit while the pass has credits', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 2, new Date());
      await exhaustFree(caller);
      const a = okOf(await standard(caller));
      expect(a.reservation).toMatchObject({ kind: 'credits', cost: 1 });
      expect(a.access).toEqual({ type: 'pass', passCredits: 1 });
      expect(okOf(await standard(caller)).access).toEqual({ type: 'pass', passCredits: 0 });
      expect(await standard(caller)).toEqual({ ok: false, code: 'insufficient_credits' });
      expect(await h.audit()).toEqual([]);
    });

    it('after the free allowance: free_limit_reached when the pass was never funded', async () => {
      const caller = await newCaller(store);
      await exhaustFree(caller);
      expect(await standard(caller)).toEqual({ ok: false, code: 'free_limit_reached' });
    });

    it('after the free allowance: insufficient_credits when a funded pass is empty', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 1, new Date());
      await exhaustFree(caller);
      okOf(await standard(caller));
      expect(await standard(caller)).toEqual({ ok: false, code: 'insufficient_credits' });
    });

    it('a refusal writes nothing', async () => {
      const caller = await newCaller(store);
      await exhaustFree(caller);
      const before = await h.chargeStates();
      expect((await standard(caller)).ok).toBe(false);
      expect(await h.chargeStates()).toEqual(before);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 0 });
    });

    it('the allowance is per key, and two keys of one pass share its credits', async () => {
      const a = await newCaller(store);
      const b = await newCaller(store, a.passId);
      await store.passes.fund(a.passId, 1, new Date());
      await exhaustFree(a);
      expect(okOf(await standard(b)).access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(okOf(await standard(a)).access).toEqual({ type: 'pass', passCredits: 0 });
      await exhaustFree(b, 19);
      expect(await standard(b)).toEqual({ ok: false, code: 'insufficient_credits' });
    });

    it('a new UTC day resets the free allowance', async () => {
      const caller = await newCaller(store);
      await exhaustFree(caller);
      expect(await standard(caller)).toEqual({ ok: false, code: 'free_limit_reached' });
      expect(okOf(await standard(caller, IP, NEXT)).access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 20, passCredits: 0 });
      expect(await store.keys.usage(caller, NEXT)).toEqual({ freeUsed: 1, passCredits: 0 });
    });

    it('rejects an invalid time', async () => {
      const caller = await newCaller(store);
      await expect(standard(caller, IP, new Date('22/11/2026'))).rejects.toThrow(/Invalid time value/);
    });
  });

  describe(`${h.name}: reserve, stress depth`, () => {
    beforeEach(() => open());

    it('pass_required with 0 credits, never funded or spent down', async () => {
      const caller = await newCaller(store);
      expect(await stress(caller)).toEqual({ ok: false, code: 'pass_required' });
      await store.passes.fund(caller.passId, 5, new Date());
      okOf(await stress(caller));
      expect(await stress(caller)).toEqual({ ok: false, code: 'pass_required' });
    });

    it('insufficient_credits with 1 to 4 credits', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 4, new Date());
      expect(await stress(caller)).toEqual({ ok: false, code: 'insufficient_credits' });
      expect((await store.keys.usage(caller, NOW)).passCredits).toBe(4);
    });

    it('takes 5 credits and never the free allowance', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 12, new Date());
      const a = okOf(await stress(caller));
      expect(a.reservation).toMatchObject({ kind: 'credits', cost: 5 });
      expect(a.access).toEqual({ type: 'pass', passCredits: 7 });
      expect(okOf(await stress(caller)).access).toEqual({ type: 'pass', passCredits: 2 });
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 2 });
      expect(await h.audit()).toEqual([]);
    });
  });

  describe(`${h.name}: site limits on free decisions`, () => {
    it('per IP: beyond the limit free use is rate_limited, a pass pays past it', async () => {
      await open({ freePerIp: 2 });
      const a = await newCaller(store);
      const b = await newCaller(store);
      okOf(await standard(a));
      okOf(await standard(b)); // another key, same IP: the IP's second free decision
      expect(await standard(a)).toEqual({ ok: false, code: 'rate_limited' });
      expect(await standard(b)).toEqual({ ok: false, code: 'rate_limited' });
      // The same address seen through a dual-stack socket is the same client.
      expect(await standard(a, `::ffff:${IP}`)).toEqual({ ok: false, code: 'rate_limited' });
      expect(okOf(await standard(a, '198.51.100.1')).access).toEqual({ type: 'free', freeRemaining: 18 });

      await store.passes.fund(a.passId, 1, new Date());
      const paid = okOf(await standard(a));
      expect(paid.reservation).toMatchObject({ kind: 'credits', cost: 1 });
      expect(paid.access).toEqual({ type: 'pass', passCredits: 0 });
      // A funded pass that is empty again is held by the site limit, not refused for credits.
      expect(await standard(a)).toEqual({ ok: false, code: 'rate_limited' });
      expect(await store.keys.usage(a, NOW)).toEqual({ freeUsed: 2, passCredits: 0 });
      expect(await h.audit()).toEqual([]);
    });

    it('per site: all keys and IPs share the daily limit, reset by the day', async () => {
      await open({ freePerSite: 3 });
      const a = await newCaller(store);
      const b = await newCaller(store);
      okOf(await standard(a, '10.0.0.1'));
      okOf(await standard(b, '10.0.0.2'));
      okOf(await standard(a, '10.0.0.3'));
      expect(await standard(b, '10.0.0.4')).toEqual({ ok: false, code: 'rate_limited' });
      await store.passes.fund(b.passId, 2, new Date());
      expect(okOf(await standard(b, '10.0.0.4')).access).toEqual({ type: 'pass', passCredits: 1 });
      expect(okOf(await standard(b, '10.0.0.4', NEXT)).access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(await h.audit()).toEqual([]);
    });

    it('0 means no limit', async () => {
      await open({ freePerKey: 60, freePerIp: 0, freePerSite: 0 });
      const caller = await newCaller(store);
      for (let i = 0; i < 60; i++) expect(okOf(await standard(caller)).reservation.kind).toBe('free');
      expect(await standard(caller)).toEqual({ ok: false, code: 'free_limit_reached' });
    });

    it('a released free unit frees its place under the IP and site limits', async () => {
      await open({ freePerIp: 1, freePerSite: 1 });
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      expect(await standard(caller)).toEqual({ ok: false, code: 'rate_limited' });
      await store.charges.release(r.reservation.id, NOW);
      expect(okOf(await standard(caller)).access).toEqual({ type: 'free', freeRemaining: 19 });
      expect(await h.audit()).toEqual([]);
    });

    it('two stores with the same limits share them', async () => {
      const first = await open({ freePerSite: 2 });
      const second = await open({ freePerSite: 2 });
      const a = await newCaller(first);
      const b = await newCaller(second);
      okOf(await first.charges.reserve({ caller: a, depth: 'standard', ip: '10.0.0.1' }, NOW));
      okOf(await second.charges.reserve({ caller: b, depth: 'standard', ip: '10.0.0.2' }, NOW));
      expect(await first.charges.reserve({ caller: b, depth: 'standard', ip: '10.0.0.3' }, NOW)).toEqual({
        ok: false,
        code: 'rate_limited',
      });
      expect(await second.charges.reserve({ caller: a, depth: 'standard', ip: '10.0.0.4' }, NOW)).toEqual({
        ok: false,
        code: 'rate_limited',
      });
    });

    it('stores a fingerprint of the IP, never the IP', async () => {
      await open({ freePerIp: 5 });
      const caller = await newCaller(store);
      okOf(await standard(caller));
      await store.close();
      const bytes = await h.everything();
      expect(bytes.includes(Buffer.from(IP))).toBe(false);
      expect(bytes.includes(Buffer.from(caller.keyId))).toBe(true); // positive control
    });
  });

  describe(`${h.name}: commit and release`, () => {
    beforeEach(() => open());

    it('release gives credits back exactly, once', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 10, new Date());
      const r = okOf(await stress(caller));
      expect((await store.keys.usage(caller, NOW)).passCredits).toBe(5);
      await store.charges.release(r.reservation.id, NOW);
      expect((await store.keys.usage(caller, NOW)).passCredits).toBe(10);
      await store.charges.release(r.reservation.id, NOW);
      await store.charges.commit(r.reservation.id, NOW);
      expect((await store.keys.usage(caller, NOW)).passCredits).toBe(10);
      expect(await h.chargeStates()).toEqual({ released: 1 });
      expect(await h.audit()).toEqual([]);
    });

    it('release gives the free unit back to the key', async () => {
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      expect((await store.keys.usage(caller, NOW)).freeUsed).toBe(1);
      await store.charges.release(r.reservation.id, NOW);
      await store.charges.release(r.reservation.id, NOW);
      expect((await store.keys.usage(caller, NOW)).freeUsed).toBe(0);
      expect(okOf(await standard(caller)).access).toEqual({ type: 'free', freeRemaining: 19 });
    });

    it('commit keeps what was taken; a later release is a no-op', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 6, new Date());
      const s = okOf(await stress(caller));
      const f = okOf(await standard(caller));
      await store.charges.commit(s.reservation.id, NOW);
      await store.charges.commit(f.reservation.id, NOW);
      await store.charges.commit(s.reservation.id, NOW);
      await store.charges.release(s.reservation.id, NOW);
      await store.charges.release(f.reservation.id, NOW);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 1, passCredits: 1 });
      expect(await h.chargeStates()).toEqual({ committed: 2 });
      expect(await h.audit()).toEqual([]);
    });

    it('commit reports whether it charged: a released reservation stays uncharged, with what the caller holds now', async () => {
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 12, new Date());
      const kept = okOf(await stress(caller));
      expect(await store.charges.commit(kept.reservation.id, NOW)).toEqual({ charged: true });
      // Again: the charge stands, nothing moves.
      expect(await store.charges.commit(kept.reservation.id, NOW)).toEqual({ charged: true });

      const credits = okOf(await stress(caller));
      const free = okOf(await standard(caller));
      await standard(caller); // another free unit, still held
      await store.charges.release(credits.reservation.id, NOW);
      await store.charges.release(free.reservation.id, NOW);
      expect(await store.charges.commit(credits.reservation.id, NOW)).toEqual({ charged: false, access: { type: 'pass', passCredits: 7 } });
      expect(await store.charges.commit(free.reservation.id, NOW)).toEqual({ charged: false, access: { type: 'free', freeRemaining: 19 } });
      expect(await store.charges.commit('chg_unknown', NOW)).toEqual({ charged: false, access: null });
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 1, passCredits: 7 });
      expect(await h.chargeStates()).toEqual({ committed: 1, released: 2, reserved: 1 });
      expect(await h.audit()).toEqual([]);
    });

    it('a settlement is written with the commit, in its transaction, once', async () => {
      await served(100);
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      expect(await store.idempotency.begin(caller.keyId, 'idem-1', 'h', NOW)).toEqual({ state: 'new' });
      const calls: unknown[] = [];
      const settlement: Settlement = {
        sample: { reservedAt: NOW, channel: 'api', ms: 300 },
        idempotency: { keyId: caller.keyId, idemKey: 'idem-1' },
        answer: (outcome, api) => {
          calls.push({ outcome, api });
          return `{"answer":${calls.length}}`;
        },
      };
      expect(await store.charges.commit(r.reservation.id, NOW, settlement)).toEqual({ charged: true });
      expect(calls).toEqual([{ outcome: { charged: true }, api: { channel: 'api', samples: 2, totalMs: 400, uncharged: 0 } }]);
      expect(await store.metrics.day(NOW)).toEqual([
        { channel: 'api', samples: 2, totalMs: 400, uncharged: 0 },
        { channel: 'web', samples: 0, totalMs: 0, uncharged: 0 },
      ]);
      expect(await store.idempotency.begin(caller.keyId, 'idem-1', 'h', NOW)).toEqual({
        state: 'replay',
        status: 200,
        body: '{"answer":1}',
      });

      // Committed already (an earlier run whose answer was lost): nothing is written twice.
      expect(await store.charges.commit(r.reservation.id, NOW, settlement)).toEqual({ charged: true });
      expect(calls).toHaveLength(1);
      expect((await store.metrics.day(NOW))[0]).toEqual({ channel: 'api', samples: 2, totalMs: 400, uncharged: 0 });

      // A web decision's answer still gets the api group's figures.
      const w = okOf(await standard(caller));
      await store.charges.commit(w.reservation.id, NOW, {
        ...settlement,
        sample: { reservedAt: NOW, channel: 'web', ms: 50 },
        idempotency: undefined,
      });
      expect(calls[1]).toEqual({ outcome: { charged: true }, api: { channel: 'api', samples: 2, totalMs: 400, uncharged: 0 } });
      expect(await h.chargeStates()).toEqual({ committed: 3 });
      expect(await h.audit()).toEqual([]);
    });

    it('a settlement of a released reservation: served free, its sample and answer kept all the same', async () => {
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      expect(await store.idempotency.begin(caller.keyId, 'idem-2', 'h', NOW)).toEqual({ state: 'new' });
      await store.charges.release(r.reservation.id, NOW);
      let seen: CommitOutcome | undefined;
      const outcome = await store.charges.commit(r.reservation.id, NOW, {
        sample: { reservedAt: NOW, channel: 'api', ms: 40 },
        idempotency: { keyId: caller.keyId, idemKey: 'idem-2' },
        answer: (o) => {
          seen = o;
          return '{"free":true}';
        },
      });
      expect(outcome).toEqual({ charged: false, access: { type: 'free', freeRemaining: 20 } });
      expect(seen).toEqual(outcome);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 0 });
      // Counted as served without a charge.
      expect((await store.metrics.day(NOW))[0]).toEqual({ channel: 'api', samples: 1, totalMs: 40, uncharged: 1 });
      expect(await store.idempotency.begin(caller.keyId, 'idem-2', 'h', NOW)).toEqual({
        state: 'replay',
        status: 200,
        body: '{"free":true}',
      });
      expect(await h.chargeStates()).toEqual({ released: 1 });
      expect(await h.audit()).toEqual([]);
    });

    it('a settlement with a nonsense sample is refused before anything is written', async () => {
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      const answer = () => '{}';
      await expect(
        store.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: NOW, channel: 'api', ms: -1 }, answer }),
      ).rejects.toThrow(/non-negative/);
      await expect(
        store.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: new Date('22/11/2026'), channel: 'api', ms: 1 }, answer }),
      ).rejects.toThrow(/Invalid time value/);
      expect(await h.chargeStates()).toEqual({ reserved: 1 });
    });

    it('records the settlement time, and an unknown id is a no-op', async () => {
      const caller = await newCaller(store);
      const r = okOf(await standard(caller));
      const later = new Date('2026-11-22T10:00:01.250Z');
      await store.charges.commit(r.reservation.id, later);
      await store.charges.commit('chg_unknown', later);
      await store.charges.release('chg_unknown', later);
      const rows = await h.rows('SELECT state, created_at, settled_at, day FROM charges WHERE id = ?', [r.reservation.id]);
      expect(rows).toEqual([
        {
          state: 'committed',
          created_at: '2026-11-22T10:00:00.000Z',
          settled_at: '2026-11-22T10:00:01.250Z',
          day: DAY,
        },
      ]);
    });

    it('a release after midnight gives back the day the charge was taken on', async () => {
      const caller = await newCaller(store);
      await exhaustFree(caller, 19);
      const last = okOf(await standard(caller));
      await store.charges.release(last.reservation.id, new Date('2026-11-23T00:00:05.000Z'));
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 19, passCredits: 0 });
      expect(await store.keys.usage(caller, NEXT)).toEqual({ freeUsed: 0, passCredits: 0 });
    });

    it('books balance over a mixed history', async () => {
      await open({ freePerKey: 3, freePerIp: 2, freePerSite: 4 });
      const callers = [await newCaller(store), await newCaller(store), await newCaller(store)];
      await store.passes.fund(callers[0].passId, 9, new Date());
      await store.passes.fund(callers[1].passId, 3, new Date());
      let i = 0;
      for (let round = 0; round < 12; round++) {
        for (const caller of callers) {
          const out = await store.charges.reserve(
            { caller, depth: round % 4 === 3 ? 'stress' : 'standard', ip: `10.0.0.${round % 3}` },
            NOW,
          );
          if (out.ok) {
            if (i++ % 3 === 0) await store.charges.release(out.reservation.id, NOW);
            else if (i % 2 === 0) await store.charges.commit(out.reservation.id, NOW);
            // the rest stay reserved
          }
        }
      }
      const states = await h.chargeStates();
      expect(states.reserved).toBeGreaterThan(0);
      expect(states.committed).toBeGreaterThan(0);
      expect(states.released).toBeGreaterThan(0);
      expect(await h.audit()).toEqual([]);
    });

    it('the audit catches a balance edited in place', async () => {
      const { passId } = await store.passes.create(new Date());
      await store.passes.fund(passId, 3, new Date());
      await store.close();
      await h.exec('UPDATE passes SET credits = credits + 1 WHERE id = ?', [passId]);
      expect(await h.audit()).toEqual([`pass ${passId}: funded 3 − spent 0 ≠ balance 4`]);
    });

    it('the audit catches a free counter out of step with its charges', async () => {
      const caller = await newCaller(store);
      okOf(await standard(caller));
      await h.exec('UPDATE site_usage SET used = used + 1');
      expect(await h.audit()).toEqual([`site/day ${DAY}: counter 2 ≠ active free charges 1`]);
    });
  });

  describe(`${h.name}: recoverInterrupted`, () => {
    it('releases reservations a dead process left and drops its running idempotency records', async () => {
      await open();
      const caller = await newCaller(store);
      await store.passes.fund(caller.passId, 5, new Date());
      const f = okOf(await standard(caller));
      const s = okOf(await stress(caller));
      const done = okOf(await standard(caller));
      expect(await store.idempotency.begin(caller.keyId, 'running-one', 'h1', NOW)).toEqual({ state: 'new' });
      expect(await store.idempotency.begin(caller.keyId, 'done-one', 'h2', NOW)).toEqual({ state: 'new' });
      await store.charges.commit(done.reservation.id, NOW, {
        sample: { reservedAt: NOW, channel: 'api', ms: 1 },
        idempotency: { keyId: caller.keyId, idemKey: 'done-one' },
        answer: () => '{"ok":1}',
      });
      await store.close(); // the process "dies" here without releasing
      await h.outliveLeases();

      await open();
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 2, passCredits: 0 });
      expect(await store.recoverInterrupted()).toBe(2);
      expect(await store.keys.usage(caller, NOW)).toEqual({ freeUsed: 1, passCredits: 5 });
      const states = await h.rows('SELECT id, state FROM charges ORDER BY id');
      expect(states).toEqual(
        [
          { id: f.reservation.id, state: 'released' },
          { id: s.reservation.id, state: 'released' },
          { id: done.reservation.id, state: 'committed' },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
      expect(await store.idempotency.begin(caller.keyId, 'running-one', 'h1', NOW)).toEqual({ state: 'new' });
      expect(await store.idempotency.begin(caller.keyId, 'done-one', 'h2', NOW)).toEqual({
        state: 'replay',
        status: 200,
        body: '{"ok":1}',
      });
      expect(await store.recoverInterrupted()).toBe(0);
      expect(await h.audit()).toEqual([]);
    });
  });

  describe(`${h.name}: idempotency`, () => {
    let caller: Caller;
    beforeEach(async () => {
      await open();
      caller = await newCaller(store);
    });
    const at = (ms: number) => new Date(NOW.getTime() + ms);
    const H24 = 24 * 60 * 60 * 1000;

    it('new → in_progress → replay, and mismatch for another body', async () => {
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-a', NOW)).toEqual({ state: 'new' });
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-a', at(10))).toEqual({ state: 'in_progress' });
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-b', at(10))).toEqual({ state: 'mismatch' });
      expect(await decidedUnder(caller, 'k1', '{"result":1}')).toEqual({ charged: true });
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-a', at(20))).toEqual({
        state: 'replay',
        status: 200,
        body: '{"result":1}',
      });
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-b', at(20))).toEqual({ state: 'mismatch' });
      // Finishing or abandoning a finished record changes nothing.
      await decidedUnder(caller, 'k1', 'other');
      await store.idempotency.abandon(caller.keyId, 'k1');
      expect(await store.idempotency.begin(caller.keyId, 'k1', 'hash-a', at(30))).toEqual({
        state: 'replay',
        status: 200,
        body: '{"result":1}',
      });
    });

    it('concurrent begins with one header: exactly one runs', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => store.idempotency.begin(caller.keyId, 'race', 'h', NOW)));
      expect(answers.filter((a) => a.state === 'new')).toHaveLength(1);
      expect(answers.filter((a) => a.state === 'in_progress')).toHaveLength(19);
    });

    it('abandon drops a running record so the retry runs anew', async () => {
      expect(await store.idempotency.begin(caller.keyId, 'k2', 'h', NOW)).toEqual({ state: 'new' });
      await store.idempotency.abandon(caller.keyId, 'k2');
      expect(await store.idempotency.begin(caller.keyId, 'k2', 'other', NOW)).toEqual({ state: 'new' });
    });

    it('is scoped by key', async () => {
      const other = await newCaller(store);
      expect(await store.idempotency.begin(caller.keyId, 'same', 'h', NOW)).toEqual({ state: 'new' });
      expect(await store.idempotency.begin(other.keyId, 'same', 'h', NOW)).toEqual({ state: 'new' });
    });

    it('a record counts as absent once 24 h old, and is replaced', async () => {
      await store.idempotency.begin(caller.keyId, 'k3', 'h', NOW);
      await decidedUnder(caller, 'k3', 'first');
      expect(await store.idempotency.begin(caller.keyId, 'k3', 'other', at(H24 - 1))).toEqual({ state: 'mismatch' });
      expect(await store.idempotency.begin(caller.keyId, 'k3', 'h', at(H24 - 1))).toMatchObject({ state: 'replay' });
      expect(await store.idempotency.begin(caller.keyId, 'k3', 'other', at(H24))).toEqual({ state: 'new' });
      expect(await store.idempotency.begin(caller.keyId, 'k3', 'other', at(H24 + 1))).toEqual({ state: 'in_progress' });
      const rows = await h.rows('SELECT request_hash, state, created_at FROM idempotency WHERE idem_key = ?', ['k3']);
      expect(rows).toEqual([{ request_hash: 'other', state: 'running', created_at: at(H24).toISOString() }]);
    });

    it('a stale running record does not block forever', async () => {
      await store.idempotency.begin(caller.keyId, 'k4', 'h', NOW);
      expect(await store.idempotency.begin(caller.keyId, 'k4', 'h', at(H24 + 5))).toEqual({ state: 'new' });
    });

    it('sweeps expired records of every key', async () => {
      const other = await newCaller(store);
      await store.idempotency.begin(caller.keyId, 'old', 'h', NOW);
      await store.idempotency.begin(other.keyId, 'recent', 'h', at(H24 - 1000));
      await store.idempotency.begin(caller.keyId, 'trigger', 'h', at(H24 + 1));
      const keys = await h.rows<{ idem_key: string }>('SELECT idem_key FROM idempotency ORDER BY idem_key');
      expect(keys.map((r) => r.idem_key)).toEqual(['recent', 'trigger']);
    });
  });

  describe(`${h.name}: metrics`, () => {
    beforeEach(() => open());

    it('sums samples per day and channel, both channels always present', async () => {
      expect(await store.metrics.day(NOW)).toEqual([
        { channel: 'api', samples: 0, totalMs: 0, uncharged: 0 },
        { channel: 'web', samples: 0, totalMs: 0, uncharged: 0 },
      ]);
      await served(100);
      await served(250.6);
      await served(40, 'web');
      await served(7, 'web', NEXT);
      expect(await store.metrics.day(NOW)).toEqual([
        { channel: 'api', samples: 2, totalMs: 351, uncharged: 0 },
        { channel: 'web', samples: 1, totalMs: 40, uncharged: 0 },
      ]);
      expect(await store.metrics.day(NEXT)).toEqual([
        { channel: 'api', samples: 0, totalMs: 0, uncharged: 0 },
        { channel: 'web', samples: 1, totalMs: 7, uncharged: 0 },
      ]);
    });

    it('two stores on one ledger count into the same metrics', async () => {
      const other = await h.open();
      opened.push(other);
      const callers = await Promise.all(Array.from({ length: 40 }, () => newCaller(store)));
      await Promise.all(
        callers.map(async (caller, i) => {
          const on = i % 2 ? other : store;
          const r = okOf(await on.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
          await on.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: NOW, channel: 'api', ms: 10 }, answer: () => '{}' });
        }),
      );
      expect(await store.metrics.day(NOW)).toEqual(await other.metrics.day(NOW));
      expect((await other.metrics.day(NOW))[0]).toEqual({ channel: 'api', samples: 40, totalMs: 400, uncharged: 0 });
    });

    it('rejects nonsense samples before anything is written', async () => {
      const r = okOf(await standard(await newCaller(store)));
      const commit = (channel: Channel, ms: number) =>
        store.charges.commit(r.reservation.id, NOW, { sample: { reservedAt: NOW, channel, ms }, answer: () => '{}' });
      await expect(commit('api', -1)).rejects.toThrow(/non-negative/);
      await expect(commit('api', Number.NaN)).rejects.toThrow(/non-negative/);
      await expect(commit('mcp' as 'api', 1)).rejects.toThrow(/channel/);
      expect(await h.chargeStates()).toEqual({ reserved: 1 });
    });
  });

  describe(`${h.name}: what reaches the database`, () => {
    it('the key never appears in it; its fingerprint and hint do', async () => {
      await open();
      const keys: CreatedKey[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await store.keys.create(new Date(), i === 0 ? undefined : keys[0].passId);
        keys.push(created);
        const caller = await store.keys.authenticate(keyFingerprint(created.key));
        expect(caller?.keyId).toBe(created.keyId);
        await store.charges.reserve({ caller: caller!, depth: 'standard', ip: IP }, NOW);
      }
      await store.keys.revoke(keys[2].keyId, NOW);
      await store.close();
      const bytes = await h.everything();
      for (const { key, keyHint } of keys) {
        expect(bytes.includes(Buffer.from(key, 'utf8'))).toBe(false);
        expect(bytes.includes(Buffer.from(key.slice('dcd_api_'.length, -6), 'utf8'))).toBe(false); // the secret part
        expect(bytes.includes(Buffer.from(key, 'utf16le'))).toBe(false);
        // Positive controls: we are reading the right bytes.
        expect(bytes.includes(keyFingerprint(key))).toBe(true);
        expect(bytes.includes(Buffer.from(keyHint, 'utf8'))).toBe(true);
      }
    });
  });

  describe(`${h.name}: the browser's side`, () => webStoreSuite(h));

  describe(`${h.name}: the pass page's side`, () => dashboardStoreSuite(h));

  describe(`${h.name}: several units in one reservation`, () => unitsStoreSuite(h));

  describe(`${h.name}: the operator's side`, () => operatorStoreSuite(h));

  describe(`${h.name}: the decision log`, () => decisionLogSuite(h));

  describe(`${h.name}: fitted temperatures`, () => {
    const fitted = (
      target: Calibration['target'],
      temperature: number,
      model = 'm1',
      debias: Calibration['debias'] = 'reverse',
      offsets: number[] | null = null,
    ): Calibration => ({
      engine: 'local',
      model,
      debias,
      target,
      temperature,
      offsets,
      fitted: 100,
      heldOut: 90,
      eceBefore: 0.25,
      eceAfter: 0.04,
      fittedAt: '2026-11-22T10:00:00.000Z',
    });

    it('keeps one temperature per engine, model, debiasing and target, replaced by a new fit, listed by all three and reset by engine and model', async () => {
      await open();
      await store.calibrations.save(fitted('choice', 2.5));
      await store.calibrations.save(fitted('noul', 1.8));
      await store.calibrations.save(fitted('choice', 3.1));
      await store.calibrations.save(fitted('choice', 0.9, 'm2'));
      // A fit made under another debiasing is another fit: never applied under this one.
      await store.calibrations.save(fitted('choice', 1.4, 'm1', 'cyclic'));
      expect(await store.calibrations.list({ engine: 'local', model: 'm1', debias: 'reverse' })).toEqual([
        fitted('choice', 3.1),
        fitted('noul', 1.8),
      ]);
      expect(await store.calibrations.list({ engine: 'local', model: 'm1', debias: 'cyclic' })).toEqual([
        fitted('choice', 1.4, 'm1', 'cyclic'),
      ]);
      expect(await store.calibrations.list({ engine: 'local', model: 'm1', debias: 'none' })).toEqual([]);
      expect(await store.calibrations.list()).toHaveLength(4);
      // Another server on the same ledger sees them.
      const other = await h.open();
      opened.push(other);
      expect((await other.calibrations.list({ engine: 'local', model: 'm2', debias: 'reverse' }))[0].temperature).toBe(0.9);
      expect(await store.calibrations.reset({ engine: 'local', model: 'm1' })).toBe(3);
      expect(await store.calibrations.list()).toEqual([fitted('choice', 0.9, 'm2')]);
    });

    it('keeps the offsets fitted with a temperature, and gives them back as they were', async () => {
      await open();
      await store.calibrations.save(fitted('choice', 1.2, 'm1', 'none', [0.41, 0, -0.22]));
      await store.calibrations.save(fitted('noul', 0.9, 'm1', 'none', [-0.3]));
      expect(await store.calibrations.list({ engine: 'local', model: 'm1', debias: 'none' })).toEqual([
        fitted('choice', 1.2, 'm1', 'none', [0.41, 0, -0.22]),
        fitted('noul', 0.9, 'm1', 'none', [-0.3]),
      ]);
      // A refit without offsets clears them.
      await store.calibrations.save(fitted('choice', 1, 'm1', 'none'));
      expect((await store.calibrations.list({ engine: 'local', model: 'm1', debias: 'none' }))[0].offsets).toBeNull();
      await expect(store.calibrations.save(fitted('score', 1, 'm1', 'none', [Number.NaN]))).rejects.toThrow(/finite/);
    });

    it('refuses a temperature that is not a positive number', async () => {
      await open();
      for (const temperature of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.calibrations.save(fitted('score', temperature))).rejects.toThrow(/positive/);
      }
      expect(await store.calibrations.list()).toEqual([]);
    });
  });

  describe(`${h.name}: decide eval's summaries`, () => {
    const measured = (accuracy: number, model = 'm1', debias: Evaluation['debias'] = 'reverse', items = 262): Evaluation => ({
      engine: 'local',
      model,
      debias,
      set: 'eval/decisions.jsonl',
      half: null,
      items,
      measured: items - 2,
      calibrated: false,
      accuracy: { value: accuracy, low: accuracy - 0.08, high: accuracy + 0.08 },
      logLoss: { value: 1.0625, low: 0.95, high: 1.1875 },
      ece: { value: 0.125, low: null, high: null },
      evaluatedAt: '2026-12-01T09:30:00.000Z',
    });

    it('keeps one summary per engine, model and debiasing, replaced by the next run, and gives it back as it was', async () => {
      await open();
      expect(await store.evaluations.find({ engine: 'local', model: 'm1', debias: 'reverse' })).toBeUndefined();
      await store.evaluations.save(measured(0.375));
      await store.evaluations.save(measured(0.5, 'm2'));
      await store.evaluations.save(measured(0.625, 'm1', 'none'));
      expect(await store.evaluations.find({ engine: 'local', model: 'm1', debias: 'reverse' })).toEqual(measured(0.375));
      // A re-run replaces it, whatever it measured this time.
      const again: Evaluation = {
        ...measured(0.4375, 'm1', 'reverse', 60),
        half: 'odd',
        calibrated: true,
        logLoss: null,
        evaluatedAt: '2026-12-02T08:00:00.000Z',
      };
      await store.evaluations.save(again);
      expect(await store.evaluations.find({ engine: 'local', model: 'm1', debias: 'reverse' })).toEqual(again);
      expect(await store.evaluations.find({ engine: 'local', model: 'm1', debias: 'cyclic' })).toBeUndefined();
      expect(await store.evaluations.find({ engine: 'openai', model: 'm1', debias: 'reverse' })).toBeUndefined();
      expect(await store.evaluations.list()).toEqual([measured(0.625, 'm1', 'none'), again, measured(0.5, 'm2')]);
      // Another server on the same ledger sees it.
      const other = await h.open();
      opened.push(other);
      expect((await other.evaluations.find({ engine: 'local', model: 'm2', debias: 'reverse' }))?.accuracy?.value).toBe(0.5);
    });

    it('refuses counts that are not counts and figures that are not finite, keeping nothing', async () => {
      await open();
      await expect(store.evaluations.save({ ...measured(0.5), items: -1, measured: 0 })).rejects.toThrow(/non-negative/);
      await expect(store.evaluations.save({ ...measured(0.5), measured: 300 })).rejects.toThrow(/more items/);
      await expect(store.evaluations.save({ ...measured(0.5), ece: { value: Number.NaN, low: null, high: null } })).rejects.toThrow(
        /finite/,
      );
      expect(await store.evaluations.list()).toEqual([]);
    });
  });
}
