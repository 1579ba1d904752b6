import { beforeEach, expect, it } from 'vitest';
import type { DecisionEntry, ReserveOutcome, Store } from '../../src/ledger/store.js';
import { IP, NOW } from './helpers.js';
import { openedStores } from './opened-stores.js';
import type { LedgerHarness } from './store-suite.js';
import type { Caller } from '../../src/contract/caller.js';

const DAY_MS = 86_400_000;

/**
 * The decision log's part of the `Store` contract: an entry is written by the commit
 * that settles its charge and by no other, read back per pass newest first, and swept
 * once past the retention (30 days, the default the suite's stores open with).
 * storeSuite runs it for SQLite and PostgreSQL alike.
 */
export function decisionLogSuite(h: LedgerHarness): void {
  const stores = openedStores(h);
  let store: Store;
  beforeEach(() => {
    store = stores.current();
  });
  const count = async () => (await h.rows<{ n: number }>('SELECT CAST(count(*) AS INTEGER) AS n FROM decisions'))[0].n;

  async function newKey(passId?: string) {
    const created = await store.keys.create(new Date(), passId);
    const caller: Caller = { keyId: created.keyId, passId: created.passId, keyHint: created.keyHint };
    return { caller, key: created.key };
  }

  function okOf(outcome: ReserveOutcome) {
    if (!outcome.ok) throw new Error(`expected a reservation, got ${outcome.code}`);
    return outcome.reservation;
  }

  const entryOf = (caller: Caller, top: string, extra: Partial<DecisionEntry> = {}): DecisionEntry => ({
    keyId: caller.keyId,
    passId: caller.passId,
    door: 'api',
    mode: 'choice',
    depth: 'standard',
    credits: 0,
    signal: 'directional',
    top,
    topProbability: 0.875,
    confidence: 0.75,
    text: null,
    ...extra,
  });

  /** A decision served at `at` through the real path, its commit carrying `entry`. */
  async function decided(caller: Caller, entry: DecisionEntry, at = NOW) {
    const reservation = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, at));
    return commitLogged(reservation.id, entry, at);
  }

  const commitLogged = (reservationId: string, entry: DecisionEntry, at = NOW) =>
    store.charges.commit(reservationId, at, {
      sample: { reservedAt: at, channel: 'api', ms: 5 },
      answer: () => '{}',
      logged: () => entry,
    });

  it('keeps what each commit logged, per pass, newest first, with the key by its hint', async () => {
    const { caller } = await newKey();
    const other = await newKey();
    await decided(caller, entryOf(caller, 'first'), NOW);
    await decided(caller, entryOf(caller, 'second', { door: 'mcp', credits: 1 }), new Date(NOW.getTime() + 60_000));
    await decided(other.caller, entryOf(other.caller, 'elsewhere'), NOW);

    const recent = await store.decisions.recent(caller.passId, 20);
    expect(recent.map((d) => d.top)).toEqual(['second', 'first']);
    expect(recent[0]).toEqual({
      decidedAt: new Date(NOW.getTime() + 60_000).toISOString(),
      keyHint: caller.keyHint,
      door: 'mcp',
      mode: 'choice',
      depth: 'standard',
      credits: 1,
      signal: 'directional',
      top: 'second',
      topProbability: 0.875,
      confidence: 0.75,
      text: null,
    });
    expect((await store.decisions.recent(caller.passId, 1)).map((d) => d.top)).toEqual(['second']);
  });

  it('keeps the text of a full entry as it was asked', async () => {
    const { caller } = await newKey();
    const text = { question: 'Which "one", $HOME?', context: 'Line one.\nLine two: ünïcode.', choices: ['A', 'B'], answer: '{"x":1}' };
    await decided(caller, entryOf(caller, 'A', { text }));
    await decided(caller, entryOf(caller, 'yes', { mode: 'noul', text: { ...text, choices: null } }), new Date(NOW.getTime() + 1));
    const [noul, choice] = await store.decisions.recent(caller.passId, 20);
    expect(choice.text).toEqual(text);
    expect(noul.text).toEqual({ ...text, choices: null });
  });

  it('logs a commit once: committing it again writes nothing more', async () => {
    const { caller } = await newKey();
    const reservation = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
    expect(await commitLogged(reservation.id, entryOf(caller, 'once'))).toEqual({ charged: true });
    expect(await commitLogged(reservation.id, entryOf(caller, 'twice'))).toEqual({ charged: true });
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['once']);
  });

  it('an entry the store refuses is left out, and the rest of the commit stands: charged, its answer kept', async () => {
    const { caller } = await newKey();
    expect((await store.idempotency.begin(caller.keyId, 'refused-entry', 'hash', NOW)).state).toBe('new');
    const reservation = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
    const refused: unknown[] = [];
    const outcome = await store.charges.commit(reservation.id, NOW, {
      sample: { reservedAt: NOW, channel: 'api', ms: 5 },
      idempotency: { keyId: caller.keyId, idemKey: 'refused-entry' },
      answer: () => '{"kept":true}',
      // Outside the table's CHECK (confidence from 0 to 1): no entry of the service's is, once the contract refused NUL.
      logged: () => entryOf(caller, 'A', { confidence: 2 }),
      unlogged: (error) => refused.push(error),
    });
    expect(outcome).toEqual({ charged: true });
    expect(await count()).toBe(0);
    expect(refused).toHaveLength(1);
    expect(String(refused[0])).toMatch(/check constraint|CHECK constraint/i);
    expect(await h.chargeStates()).toMatchObject({ committed: 1 });
    expect(await h.rows('SELECT status, body FROM idempotency')).toEqual([{ status: 200, body: '{"kept":true}' }]);
    expect(await h.audit()).toEqual([]);
    // The next decision is logged as ever.
    await decided(caller, entryOf(caller, 'B'));
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['B']);
  });

  it('logs nothing for a released reservation that is never committed, nor for a commit without an entry', async () => {
    const { caller } = await newKey();
    const released = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
    await store.charges.release(released.id, NOW);
    const plain = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
    await store.charges.commit(plain.id, NOW, { sample: { reservedAt: NOW, channel: 'api', ms: 5 }, answer: () => '{}' });
    expect(await count()).toBe(0);
  });

  it('the sweep deletes entries past the retention as of the time it is given, and no others', async () => {
    const { caller } = await newKey();
    await decided(caller, entryOf(caller, 'old'), new Date(NOW.getTime() - 31 * DAY_MS));
    await decided(caller, entryOf(caller, 'at the edge'), new Date(NOW.getTime() - 30 * DAY_MS));
    await decided(caller, entryOf(caller, 'recent'), new Date(NOW.getTime() - DAY_MS));
    expect(await store.decisions.sweep(NOW)).toBe(1);
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['recent', 'at the edge']);
    expect(await store.decisions.sweep(NOW)).toBe(0);
    // Two days on, the entry at the edge is past it too.
    expect(await store.decisions.sweep(new Date(NOW.getTime() + 2 * DAY_MS))).toBe(1);
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['recent']);
  });

  it('holds no key: only its id, and its hint through the keys table', async () => {
    const { caller, key } = await newKey();
    await decided(caller, entryOf(caller, 'A', { text: { question: 'q', context: 'c', choices: ['A', 'B'], answer: '{}' } }));
    const rows = await h.rows('SELECT * FROM decisions');
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).toContain(caller.keyId);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(caller.keyHint);
  });
}
