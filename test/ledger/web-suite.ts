import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/contract/key.js';
import type { Store } from '../../src/ledger/store.js';
import { IP, NEXT, newCaller, NOW } from './helpers.js';
import type { LedgerHarness } from './store-suite.js';

/**
 * The browser's side of the `Store` contract (settings, keys created from a page,
 * a pass's own keys). storeSuite runs it, inside its own per-test ledger
 * (`h.create` / `h.destroy`), for SQLite and PostgreSQL alike.
 */
export function webStoreSuite(h: LedgerHarness): void {
  let store: Store;
  const opened: Store[] = [];
  const open = async () => {
    store = await h.open();
    opened.push(store);
    return store;
  };
  beforeEach(() => open());
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });
  const count = async (table: string) => (await h.rows<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0].n;
  const limited = (passId: string, ip = IP, now = NOW, perIpLimit = 2) => store.web.createKey({ passId, ip, perIpLimit }, now);

  describe(`${h.name}: settings`, () => {
    it('stores the first value and keeps it; every store of the ledger reads the same', async () => {
      expect(await store.web.setting('cookie_secret', 'first', new Date())).toBe('first');
      expect(await store.web.setting('cookie_secret', 'second', new Date())).toBe('first');
      const other = await h.open();
      opened.push(other);
      expect(await other.web.setting('cookie_secret', 'third', new Date())).toBe('first');
      expect(await store.web.setting('other.name', 'x', new Date())).toBe('x');
      await expect(store.web.setting('Bad Name', 'x', new Date())).rejects.toThrow(/setting name/);
    });

    it('concurrent first writers agree on one value', async () => {
      const other = await h.open();
      opened.push(other);
      const values = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 ? other : store).web.setting('race', `value-${i}`, new Date())),
      );
      expect(new Set(values).size).toBe(1);
      expect(await count('settings')).toBe(1);
    });
  });

  describe(`${h.name}: keys created from a page`, () => {
    it('two keys per IP per UTC day; the third is refused and writes nothing', async () => {
      const { passId } = await store.passes.create(new Date());
      const first = await limited(passId);
      const second = await limited(passId);
      expect(first?.passId).toBe(passId);
      expect(first?.key).toMatch(/^dcd_api_[0-9A-Za-z]{49}$/);
      expect(first?.keyHint).toBe(`dcd_api_…${first?.key.slice(-4)}`);
      expect(Object.keys(first!).sort()).toEqual(['createdAt', 'key', 'keyHint', 'keyId', 'passId']);
      expect(second?.keyId).not.toBe(first?.keyId);
      expect(await store.keys.authenticate(keyFingerprint(first!.key))).toEqual({
        keyId: first!.keyId,
        passId,
        keyHint: first!.keyHint,
      });

      expect(await limited(passId)).toBeNull();
      expect(await limited(passId, `::ffff:${IP}`)).toBeNull(); // the same client through a dual-stack socket
      expect(await count('keys')).toBe(2);
      expect((await store.passes.show(passId))?.keys).toHaveLength(2);

      expect(await limited(passId, '198.51.100.9')).not.toBeNull(); // another IP
      expect(await limited(passId, IP, NEXT)).not.toBeNull(); // the next day
      // Another pass behind the same IP shares the IP's count.
      const other = await store.passes.create(new Date());
      expect(await limited(other.passId)).toBeNull();
    });

    it('counts per IP whatever the limit: 0 means no limit', async () => {
      const { passId } = await store.passes.create(new Date());
      for (let i = 0; i < 5; i++) expect(await limited(passId, IP, NOW, 0)).not.toBeNull();
      expect(await limited(passId, '10.1.1.1', NOW, 1)).not.toBeNull();
      expect(await limited(passId, '10.1.1.1', NOW, 1)).toBeNull();
      await expect(limited(passId, IP, NOW, -1)).rejects.toThrow(/non-negative/);
      await expect(limited(passId, IP, new Date('today'))).rejects.toThrow(/Invalid time value/);
    });

    it('an unknown pass is refused without counting the IP', async () => {
      await expect(limited('pass_doesnotexist')).rejects.toThrow(/does not exist/);
      const { passId } = await store.passes.create(new Date());
      expect(await limited(passId)).not.toBeNull();
      expect(await limited(passId)).not.toBeNull();
    });

    it('concurrent creations from one IP: exactly the limit succeed', async () => {
      const { passId } = await store.passes.create(new Date());
      const other = await h.open();
      opened.push(other);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? other : store).web.createKey({ passId, ip: IP, perIpLimit: 2 }, NOW)),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(2);
      expect(await count('keys')).toBe(2);
    });

    it('stores a fingerprint of the IP and of the key, never either', async () => {
      const { passId } = await store.passes.create(new Date());
      const created = await limited(passId);
      await store.close();
      const bytes = await h.everything();
      expect(bytes.includes(Buffer.from(IP))).toBe(false);
      expect(bytes.includes(Buffer.from(created!.key))).toBe(false);
      expect(bytes.includes(keyFingerprint(created!.key))).toBe(true); // positive control
    });
  });

  describe(`${h.name}: passes created from a page`, () => {
    const passes = (ip = IP, now = NOW, perIpLimit = 3) => store.web.createPass({ ip, perIpLimit }, now);

    it('so many passes per IP per UTC day; the next is refused and writes nothing', async () => {
      const made = [await passes(), await passes(), await passes()];
      expect(new Set(made.map((p) => p?.passId)).size).toBe(3);
      expect(made[0]?.passId).toMatch(/^pass_[0-9A-Za-z]{22}$/);
      expect(await store.passes.show(made[0]!.passId)).toMatchObject({ passCredits: 0, keys: [] });
      expect(await passes()).toBeNull();
      expect(await passes(`::ffff:${IP}`)).toBeNull();
      expect(await count('passes')).toBe(3);
      expect(await passes('198.51.100.9')).not.toBeNull(); // another IP
      expect(await passes(IP, NEXT)).not.toBeNull(); // the next day
      expect(await passes('10.1.1.1', NOW, 0)).not.toBeNull(); // 0 = no limit
      await expect(passes(IP, NOW, -1)).rejects.toThrow(/non-negative/);
      await expect(passes(IP, new Date('today'))).rejects.toThrow(/Invalid time value/);
    });

    it('concurrent creations from one IP: exactly the limit succeed', async () => {
      const other = await h.open();
      opened.push(other);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).web.createPass({ ip: IP, perIpLimit: 3 }, NOW)),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(3);
      expect(await count('passes')).toBe(3);
    });

    it('a refused key removes the pass it was for when that pass holds nothing, and only then', async () => {
      const empty = await passes();
      const keyed = await passes();
      const funded = await passes();
      expect(await limited(keyed!.passId, IP, NOW, 1)).not.toBeNull();
      await store.passes.fund(funded!.passId, 3, new Date());
      // This IP's one key of the day is made: every other pass's key is refused.
      expect(await limited(empty!.passId, IP, NOW, 1)).toBeNull();
      expect(await limited(keyed!.passId, IP, NOW, 1)).toBeNull();
      expect(await limited(funded!.passId, IP, NOW, 1)).toBeNull();
      expect(await store.passes.show(empty!.passId)).toBeNull();
      expect((await store.passes.show(keyed!.passId))?.keys).toHaveLength(1);
      expect(await store.passes.show(funded!.passId)).toMatchObject({ passCredits: 3 });
      await expect(limited(empty!.passId, IP, NEXT, 1)).rejects.toThrow(/does not exist/);
    });

    it('concurrent keys for one empty pass: the ones allowed are made on it, and it stays', async () => {
      const { passId } = (await passes())!;
      const other = await h.open();
      opened.push(other);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? other : store).web.createKey({ passId, ip: IP, perIpLimit: 2 }, NOW)),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(2);
      expect((await store.passes.show(passId))?.keys).toHaveLength(2);
    });
  });

  describe(`${h.name}: a pass's own keys`, () => {
    it('revokes a key of the pass only, once', async () => {
      const a = await newCaller(store);
      const b = await newCaller(store);
      expect(await store.web.revokeKey(b.passId, a.keyId, NOW)).toBeNull();
      expect((await store.passes.show(a.passId))?.keys[0].revokedAt).toBeNull();
      expect(await store.web.revokeKey(a.passId, a.keyId, NOW)).toEqual({
        keyHint: a.keyHint,
        revokedAt: NOW.toISOString(),
      });
      expect(await store.web.revokeKey(a.passId, a.keyId, NOW)).toBeNull();
      expect(await store.web.revokeKey(a.passId, 'key_unknown', NOW)).toBeNull();
      expect((await store.passes.show(a.passId))?.keys[0].revokedAt).toBe(NOW.toISOString());
    });

    it('a key revoked from its pass page is refused at once by the server that knew it', async () => {
      const created = await store.keys.create(new Date());
      const fingerprint = keyFingerprint(created.key);
      const caller = await store.keys.authenticate(fingerprint);
      expect(caller).toMatchObject({ keyId: created.keyId });
      expect(await store.web.revokeKey(created.passId, created.keyId, NOW)).not.toBeNull();
      expect(await store.keys.authenticate(fingerprint)).toBeNull();
    });

    it('gives the caller of an active key of the pass, and nothing else', async () => {
      const a = await newCaller(store);
      const b = await newCaller(store);
      expect(await store.web.caller(a.passId, a.keyId)).toEqual(a);
      expect(await store.web.caller(b.passId, a.keyId)).toBeNull();
      expect(await store.web.caller(a.passId, 'key_unknown')).toBeNull();
      await store.keys.revoke(a.keyId, NOW);
      expect(await store.web.caller(a.passId, a.keyId)).toBeNull();
    });

    it("reports each key's free use of the day", async () => {
      const a = await newCaller(store);
      const a2 = await newCaller(store, a.passId);
      const b = await newCaller(store);
      const take = (caller: typeof a, now = NOW) => store.charges.reserve({ caller, depth: 'standard', ip: IP }, now);
      await take(a);
      const second = await take(a);
      await take(a2, NEXT);
      await take(b);
      expect(await store.web.freeUsage(a.passId, NOW)).toEqual({ [a.keyId]: 2 });
      expect(await store.web.freeUsage(a.passId, NEXT)).toEqual({ [a2.keyId]: 1 });
      if (second.ok) await store.charges.release(second.reservation.id, NOW);
      expect(await store.web.freeUsage(a.passId, NOW)).toEqual({ [a.keyId]: 1 });
      expect(await store.web.freeUsage('pass_unknown', NOW)).toEqual({});
    });
  });
}
