import { beforeEach, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/contract/key.js';
import type { Store } from '../../src/ledger/store.js';
import { revokeByRef } from '../../src/ledger/revoke-ref.js';
import { openedStores } from './opened-stores.js';
import type { LedgerHarness } from './store-suite.js';

/**
 * The operator's side of the `Store` contract (key names, listings, revocation by
 * reference, last use, readiness), for SQLite and PostgreSQL alike; storeSuite runs it.
 */
export function operatorStoreSuite(h: LedgerHarness): void {
  const stores = openedStores(h);
  let store: Store;
  beforeEach(() => {
    store = stores.current();
  });

  it('keeps a key name; lists keys oldest first, all or of one pass; lists passes with their key counts', async () => {
    const a = await store.keys.create(new Date('2026-11-22T10:00:00.000Z'), undefined, 'ci runner');
    const b = await store.keys.create(new Date('2026-11-22T10:00:01.000Z'), a.passId);
    const c = await store.keys.create(new Date('2026-11-22T10:00:02.000Z'));
    await store.keys.revoke(b.keyId, new Date('2026-11-22T11:00:00.000Z'));
    await store.passes.fund(c.passId, 7, new Date(), 'test');

    const all = await store.keys.list();
    expect(all.map((k) => k.id)).toEqual([a.keyId, b.keyId, c.keyId]);
    expect(all[0]).toEqual({
      id: a.keyId,
      keyHint: a.keyHint,
      name: 'ci runner',
      passId: a.passId,
      createdAt: '2026-11-22T10:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(all[1]).toMatchObject({ name: null, revokedAt: '2026-11-22T11:00:00.000Z' });
    expect((await store.keys.list({ passId: a.passId })).map((k) => k.id)).toEqual([a.keyId, b.keyId]);
    expect(await store.keys.list({ passId: 'pass_unknown' })).toEqual([]);

    expect(await store.passes.list()).toEqual([
      { passId: a.passId, passCredits: 0, fundedEver: false, createdAt: '2026-11-22T10:00:00.000Z', keys: 2, activeKeys: 1 },
      { passId: c.passId, passCredits: 7, fundedEver: true, createdAt: '2026-11-22T10:00:02.000Z', keys: 1, activeKeys: 1 },
    ]);
  });

  it('refuses a name that is empty, too long, padded or holds a control character, writing nothing', async () => {
    for (const name of ['', 'x'.repeat(101), ' a', 'a\nb'])
      await expect(store.keys.create(new Date(), undefined, name)).rejects.toThrow(/key name/);
    expect(await store.keys.list()).toEqual([]);
    expect(await store.passes.list()).toEqual([]);
  });

  it('finds a key by id, by hint (… or ...), or by its last four characters; revokes by reference once', async () => {
    const a = await store.keys.create(new Date());
    const tail = a.key.slice(-4);
    for (const ref of [a.keyId, a.keyHint, `dcd_api_...${tail}`, tail])
      expect(
        (await store.keys.find(ref)).map((k) => k.id),
        ref,
      ).toEqual([a.keyId]);
    for (const ref of ['', 'key_short', 'abc', 'dcd_api_…', 'x'.repeat(60)]) expect(await store.keys.find(ref), ref).toEqual([]);

    const first = await revokeByRef(store, tail, new Date('2026-11-22T12:00:00.000Z'));
    expect(first).toMatchObject({ kind: 'revoked', revokedAt: '2026-11-22T12:00:00.000Z' });
    expect(await store.keys.authenticate(keyFingerprint(a.key))).toBeNull();
    expect(await revokeByRef(store, a.keyId, new Date())).toMatchObject({ kind: 'already', revokedAt: '2026-11-22T12:00:00.000Z' });
    expect(await revokeByRef(store, 'zzzz', new Date())).toEqual({ kind: 'unknown' });
    expect(await revokeByRef(store, 'not a key', new Date())).toEqual({ kind: 'invalid' });

    const b = await store.keys.create(new Date());
    await h.exec('UPDATE keys SET hint = ? WHERE id = ?', [a.keyHint, b.keyId]);
    const shared = await revokeByRef(store, a.keyHint, new Date());
    expect(shared.kind).toBe('ambiguous');
    expect(shared.kind === 'ambiguous' && [...shared.ids].sort()).toEqual([a.keyId, b.keyId].sort());
    expect((await store.keys.find(b.keyId))[0].revokedAt).toBeNull();
  });

  it('last use: noted in memory, written by flushUse (and close), the latest time kept, never moved back', async () => {
    const a = await store.keys.create(new Date('2026-11-22T09:00:00.000Z'));
    const b = await store.keys.create(new Date('2026-11-22T09:00:01.000Z'));
    store.keys.noteUse(a.keyId, new Date('2026-11-22T10:00:00.000Z'));
    store.keys.noteUse(a.keyId, new Date('2026-11-22T10:05:00.000Z'));
    store.keys.noteUse(a.keyId, new Date('2026-11-22T10:01:00.000Z'));
    // Nothing is written on the request's path.
    expect((await h.rows<{ n: number }>('SELECT CAST(count(*) AS INTEGER) AS n FROM keys WHERE last_used_at IS NOT NULL'))[0].n).toBe(0);
    await store.keys.flushUse();
    expect((await store.keys.find(a.keyId))[0].lastUsedAt).toBe('2026-11-22T10:05:00.000Z');

    // Another server wrote a later use: an earlier one noted here does not take it back.
    const other = await h.open();
    stores.keep(other);
    other.keys.noteUse(a.keyId, new Date('2026-11-22T11:00:00.000Z'));
    await other.keys.flushUse();
    store.keys.noteUse(a.keyId, new Date('2026-11-22T10:30:00.000Z'));
    store.keys.noteUse(b.keyId, new Date('2026-11-22T10:30:00.000Z'));
    await store.close();
    const listed = await other.keys.list();
    expect(listed.map((k) => k.lastUsedAt)).toEqual(['2026-11-22T11:00:00.000Z', '2026-11-22T10:30:00.000Z']);
  });

  it('ping resolves on a ledger that takes writes, and changes nothing in it', async () => {
    await store.keys.create(new Date());
    const snapshot = async () =>
      JSON.stringify([await h.rows('SELECT * FROM keys'), await h.rows('SELECT * FROM passes'), await h.rows('SELECT * FROM charges')]);
    const before = await snapshot();
    await store.ping();
    expect(await snapshot()).toBe(before);
  });
}
