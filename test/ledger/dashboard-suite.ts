import { beforeEach, describe, expect, it } from 'vitest';
import type { ReserveRequest, Store } from '../../src/ledger/store.js';
import { IP, NEXT, NOW } from './helpers.js';
import { openedStores } from './opened-stores.js';
import type { LedgerHarness } from './store-suite.js';
import type { Caller } from '../../src/contract/caller.js';

/**
 * What the pass page reads and lets a pass do beyond the rest of the browser's side:
 * a replacement key for a funded pass whose keys are all revoked, past the IP's daily
 * count and within its bounds, naming its keys, and the pass's usage by day and key. storeSuite runs it
 * for SQLite and PostgreSQL alike.
 */
export function dashboardStoreSuite(h: LedgerHarness): void {
  const stores = openedStores(h);
  let store: Store;
  beforeEach(() => {
    store = stores.current();
  });

  const EARLIER = new Date('2026-11-20T09:00:00.000Z');
  const counted = async () =>
    (await h.rows<{ n: number }>('SELECT CAST(coalesce(sum(created), 0) AS INTEGER) AS n FROM key_creations'))[0].n;
  const make = (passId: string, now = NOW, ip = IP) => store.web.createKey({ passId, ip, perIpLimit: 1 }, now);
  const activeKeys = async (passId: string) => (await store.passes.show(passId))!.keys.filter((k) => !k.revokedAt);
  /** A pass whose only key, made on an earlier day, is revoked; funded or not; this IP's key of the day used up. */
  async function stuckPass(funded: boolean): Promise<string> {
    const { passId, keyId } = await store.keys.create(EARLIER);
    if (funded) await store.passes.fund(passId, 10, EARLIER);
    await store.keys.revoke(keyId, EARLIER);
    const other = await store.passes.create(EARLIER);
    expect(await make(other.passId)).not.toBeNull(); // the IP's one key of the day
    return passId;
  }

  describe(`${h.name}: a replacement key for a funded pass without an active key`, () => {
    it('is made past the IP’s daily count, and not counted; once a day, and only while no key is active', async () => {
      const passId = await stuckPass(true);
      expect(await counted()).toBe(1);
      const replacement = await make(passId);
      expect(replacement?.passId).toBe(passId);
      expect(await counted()).toBe(1);
      expect((await activeKeys(passId)).map((k) => k.id)).toEqual([replacement!.keyId]);

      expect(await make(passId)).toBeNull(); // it has an active key: the IP's count decides, and it is used up
      await store.web.revokeKey(passId, replacement!.keyId, NOW);
      expect(await make(passId)).toBeNull(); // revoked again, the same day: a key was made today
      expect(await activeKeys(passId)).toEqual([]);

      expect(await make(passId, NEXT)).not.toBeNull(); // the next day, again past the count
      expect(await counted()).toBe(1);
    });

    it('is not made for a pass never funded, nor past the count for a pass with an active key', async () => {
      const unfunded = await stuckPass(false);
      expect(await make(unfunded)).toBeNull();
      const { passId } = await store.keys.create(EARLIER);
      await store.passes.fund(passId, 5, EARLIER);
      expect(await make(passId)).toBeNull();
      expect(await make(passId, NOW, '198.51.100.9')).not.toBeNull(); // another IP's count takes it
      expect(await counted()).toBe(2);
    });

    it('concurrent tries for one stuck pass make exactly one key', async () => {
      const passId = await stuckPass(true);
      const other = await h.open();
      stores.keep(other);
      const made = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? other : store).web.createKey({ passId, ip: IP, perIpLimit: 1 }, NOW)),
      );
      expect(made.filter((k) => k !== null)).toHaveLength(1);
      expect(await activeKeys(passId)).toHaveLength(1);
      expect(await counted()).toBe(1);
    });
  });

  describe(`${h.name}: naming a key of the pass`, () => {
    it('names an active key of the pass, or clears its name; not another pass’s, not a revoked one; the name checked', async () => {
      const a = await store.keys.create(EARLIER);
      const b = await store.keys.create(EARLIER);
      const name = async (keyId: string) => (await store.keys.list()).find((k) => k.id === keyId)?.name;
      expect(await store.web.nameKey(a.passId, a.keyId, 'laptop “ünïcode” ✓')).toBe(true);
      expect(await name(a.keyId)).toBe('laptop “ünïcode” ✓');
      expect(await store.web.nameKey(b.passId, a.keyId, 'stolen')).toBe(false);
      expect(await store.web.nameKey(a.passId, 'key_unknown', 'x')).toBe(false);
      for (const bad of ['', ' padded', 'tab\there', 'x'.repeat(101)]) {
        await expect(store.web.nameKey(a.passId, a.keyId, bad)).rejects.toThrow(/key name/);
      }
      expect(await name(a.keyId)).toBe('laptop “ünïcode” ✓');
      expect(await store.web.nameKey(a.passId, a.keyId, null)).toBe(true);
      expect(await name(a.keyId)).toBeNull();
      await store.keys.revoke(a.keyId, NOW);
      expect(await store.web.nameKey(a.passId, a.keyId, 'too late')).toBe(false);
      expect(await name(a.keyId)).toBeNull();
    });
  });

  describe(`${h.name}: a pass's usage by day and key`, () => {
    const caller = (k: { keyId: string; passId: string; keyHint: string }): Caller => ({
      keyId: k.keyId,
      passId: k.passId,
      keyHint: k.keyHint,
    });
    const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);
    async function charge(request: Omit<ReserveRequest, 'ip'>, at: Date, settle: 'commit' | 'release' | 'hold' = 'commit') {
      const outcome = await store.charges.reserve({ ...request, ip: IP }, at);
      if (!outcome.ok) throw new Error(`refused: ${outcome.code}`);
      if (settle === 'commit') await store.charges.commit(outcome.reservation.id, at);
      if (settle === 'release') await store.charges.release(outcome.reservation.id, at);
    }

    it('30 UTC days up to today, oldest first, zeros where nothing was charged; committed charges only, by key', async () => {
      const a = caller(await store.keys.create(EARLIER));
      const b = caller(await store.keys.create(EARLIER, a.passId));
      const stranger = caller(await store.keys.create(EARLIER));
      await store.passes.fund(a.passId, 20, EARLIER);
      await store.passes.fund(stranger.passId, 20, EARLIER);

      await charge({ caller: a, depth: 'standard' }, NOW);
      await charge({ caller: a, depth: 'standard', units: 3 }, NOW); // a System One request of three questions
      await charge({ caller: b, depth: 'stress' }, NOW);
      await charge({ caller: b, depth: 'standard' }, NOW, 'release'); // given back: nothing
      await charge({ caller: b, depth: 'standard' }, NOW, 'hold'); // still running: not yet charged
      await charge({ caller: stranger, depth: 'stress' }, NOW); // another pass's
      await charge({ caller: a, depth: 'stress' }, daysAgo(29)); // the first day shown
      await charge({ caller: a, depth: 'standard' }, daysAgo(30)); // a day too old

      const days = await store.web.history(a.passId, NOW);
      expect(days).toHaveLength(30);
      expect(days[0].day).toBe('2026-10-24');
      expect(days[29].day).toBe('2026-11-22');
      expect(days.map((d) => Date.parse(d.day) - Date.parse(days[0].day))).toEqual(days.map((_, i) => i * 86_400_000));
      expect(days[0]).toEqual({
        day: '2026-10-24',
        free: 0,
        paid: 1,
        credits: 5,
        keys: [{ keyId: a.keyId, free: 0, paid: 1, credits: 5 }],
      });
      const today = days[29];
      expect({ ...today, keys: [...today.keys].sort((x, y) => x.keyId.localeCompare(y.keyId)) }).toEqual({
        day: '2026-11-22',
        free: 4,
        paid: 1,
        credits: 5,
        keys: [
          { keyId: a.keyId, free: 4, paid: 0, credits: 0 },
          { keyId: b.keyId, free: 0, paid: 1, credits: 5 },
        ].sort((x, y) => x.keyId.localeCompare(y.keyId)),
      });
      expect(days.slice(1, 29).every((d) => d.free === 0 && d.paid === 0 && d.credits === 0 && d.keys.length === 0)).toBe(true);
      expect((await store.web.history(a.passId, NEXT))[28]).toMatchObject({ day: '2026-11-22', free: 4 }); // a day later, one place on
    });

    it('a pass without use, or unknown, is 30 days of zeros', async () => {
      const { passId } = await store.passes.create(EARLIER);
      for (const id of [passId, 'pass_unknown']) {
        const days = await store.web.history(id, NOW);
        expect(days).toHaveLength(30);
        expect(days.every((d) => d.free + d.paid + d.credits === 0 && d.keys.length === 0)).toBe(true);
      }
      await expect(store.web.history(passId, new Date('today'))).rejects.toThrow(/Invalid time value/);
    });
  });
}
