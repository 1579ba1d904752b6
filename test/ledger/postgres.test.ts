import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeLocation, openStore } from '../../src/ledger/open.js';
import { createPool, parsePostgresUrl, redactPostgresUrl } from '../../src/ledger/postgres/database.js';
import { MIGRATIONS, migrate, VERSION_TABLE } from '../../src/ledger/postgres/migrations.js';
import { openPostgresStore, PostgresStore, type PostgresStoreOptions } from '../../src/ledger/postgres/store.js';
import type { Limits, ReserveOutcome, Store } from '../../src/ledger/store.js';
import { DAY, IP, LIMITS, newCaller, NOW } from './helpers.js';
import { postgresHarness } from './postgres-harness.js';
import { dropSchema, MICROS, newSchemaName, PG_URL, PgLedger, withAdmin } from './postgres-helpers.js';
import { storeSuite } from './store-suite.js';
import { loggedAt } from './log-entry.js';
import { eventually } from '../support/time.js';
import type { Caller } from '../../src/contract/caller.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

// The Store contract, shared with SQLite (test/ledger/sqlite.test.ts).
describe.skipIf(!POSTGRES)(`the Store contract ${NEEDS_POSTGRES}`, () => storeSuite(postgresHarness()));

// What only PostgreSQL has: migrations under an advisory lock, the schema in the URL, expiry.
let ledger: PgLedger;
const stores: Store[] = [];
/** Each test below gets a schema of its own, and its stores are closed after it. */
function ownSchema() {
  beforeEach(() => {
    ledger = new PgLedger();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await ledger.dispose();
  });
}

/** A store on this test's schema; no periodic sweep unless asked. */
async function open(options: PostgresStoreOptions = {}, limits: Partial<Limits> = {}): Promise<PostgresStore> {
  const store = await openPostgresStore(ledger.url, { ...LIMITS, ...limits }, { sweepIntervalMs: 0, ...options });
  stores.push(store);
  return store;
}

function okOf(outcome: ReserveOutcome) {
  if (!outcome.ok) throw new Error(`expected a reservation, got ${outcome.code}`);
  return outcome;
}

const tables = async (schema: string) =>
  (
    await withAdmin((c) =>
      c.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [
        schema,
      ]),
    )
  ).rows.map((r) => r.table_name);

describe.skipIf(!POSTGRES)(`PostgreSQL: schema and migrations ${NEEDS_POSTGRES}`, () => {
  ownSchema();

  it('creates the schema named in the URL and every table in it, and records the version', async () => {
    await open();
    expect(await tables(ledger.schema)).toEqual([
      'calibrations',
      'charges',
      VERSION_TABLE,
      'decisions',
      'evaluations',
      'free_usage',
      'fundings',
      'idempotency',
      'ip_usage',
      'key_creations',
      'keys',
      'metrics',
      'pass_creations',
      'passes',
      'settings',
      'site_usage',
    ]);
    const versions = await ledger.rows<{ version: number }>(`SELECT version FROM ${VERSION_TABLE} ORDER BY version`);
    expect(versions.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('eight stores opening a new schema at once: each step applied once, all of them open', async () => {
    const opened = await Promise.all(Array.from({ length: 8 }, () => open({ poolSize: 2 })));
    expect(opened).toHaveLength(8);
    const versions = await ledger.rows<{ version: number }>(`SELECT version FROM ${VERSION_TABLE} ORDER BY version`);
    expect(versions.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const caller = await newCaller(opened[3]);
    expect((await opened[7].passes.show(caller.passId))?.keys).toHaveLength(1);
  });

  it('the advisory lock: later steps racing from six pools each run exactly once', async () => {
    await open();
    // A slow step, then one that would leave a second row if it ran twice.
    const steps = [...MIGRATIONS, 'CREATE TABLE applied (n integer); SELECT pg_sleep(0.2);', 'INSERT INTO applied (n) VALUES (1);'];
    const pools = Array.from({ length: 6 }, () => createPool(parsePostgresUrl(ledger.url), 1));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool, ledger.schema, steps)));
      for (const result of results) expect(result.to).toBe(MIGRATIONS.length + 2);
      // Each started from what it found; exactly one found the base version and did the work first.
      expect(results.filter((r) => r.from === MIGRATIONS.length).length).toBeGreaterThanOrEqual(1);
      expect(await ledger.rows('SELECT n FROM applied')).toEqual([{ n: 1 }]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('reopening is a no-op; a failing step leaves nothing behind', async () => {
    await open();
    const pool = createPool(parsePostgresUrl(ledger.url), 1);
    try {
      const base = MIGRATIONS.length;
      expect(await migrate(pool, ledger.schema)).toEqual({ from: base, to: base });
      const broken = [...MIGRATIONS, 'CREATE TABLE half (a integer); INSERT INTO no_such_table VALUES (1);'];
      await expect(migrate(pool, ledger.schema, broken)).rejects.toThrow(/no_such_table/);
      expect(await tables(ledger.schema)).not.toContain('half');
      expect(await migrate(pool, ledger.schema)).toEqual({ from: base, to: base });
    } finally {
      await pool.end();
    }
  });

  it('refuses a database from a newer program', async () => {
    await open();
    await ledger.exec(`INSERT INTO ${VERSION_TABLE} (version) VALUES (?)`, [MIGRATIONS.length + 1]);
    await expect(openPostgresStore(ledger.url, LIMITS)).rejects.toThrow(/newer than this program/);
  });

  it('a URL without ?schema= uses the server’s search_path, e.g. set by options=-c search_path=…', async () => {
    const schema = newSchemaName();
    try {
      await withAdmin((c) => c.query(`CREATE SCHEMA ${schema}`));
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const store = await openStore(url.toString(), LIMITS);
      stores.push(store);
      expect(store).toBeInstanceOf(PostgresStore);
      await store.passes.create(new Date());
      expect(await tables(schema)).toContain('passes');

      const missing = new URL(PG_URL);
      missing.searchParams.set('options', `-c search_path=${newSchemaName()}`);
      await expect(openStore(missing.toString(), LIMITS)).rejects.toThrow(/no schema of the search_path exists/);
    } finally {
      await dropSchema(schema);
    }
  });

  it('checks the schema name and the options, and masks a password in messages', async () => {
    await expect(openStore(`${PG_URL}?schema=bad-name`, LIMITS)).rejects.toThrow(/schema name/);
    await expect(openStore(`${PG_URL}?schema=x;drop`, LIMITS)).rejects.toThrow(/schema name/);
    await expect(openPostgresStore(ledger.url, LIMITS, { expiryMarginMs: -1 })).rejects.toThrow(/expiryMarginMs/);
    await expect(openPostgresStore(ledger.url, LIMITS, { poolSize: 0 })).rejects.toThrow(/poolSize/);
    expect(redactPostgresUrl('postgres://decide:s3cret@db.example:5432/prod?schema=a')).toBe(
      'postgres://decide:***@db.example:5432/prod?schema=a',
    );
    expect(describeLocation('postgresql://u@h/db?password=s3cret')).not.toContain('s3cret');
    expect(describeLocation('./decide.db')).toBe('./decide.db');
    // pg reads the schema from our parameter, and sets it on every connection.
    expect(parsePostgresUrl('postgres://u@h/db?schema=abc&sslmode=disable')).toEqual({
      connectionString: 'postgres://u@h/db?sslmode=disable&options=-c+search_path%3Dabc',
      schema: 'abc',
    });
  });
});

describe.skipIf(!POSTGRES)(`PostgreSQL: a database at step 6 brought forward ${NEEDS_POSTGRES}`, () => {
  ownSchema();

  it('keeps a group reserved before step 7 whole, and reserves one unit by reserve_charge after it', async () => {
    const pool = createPool(parsePostgresUrl(ledger.url), 1);
    try {
      expect(await migrate(pool, ledger.schema, MIGRATIONS.slice(0, 6))).toEqual({ from: 0, to: 6 });
    } finally {
      await pool.end();
    }
    const at = NOW.toISOString();
    await ledger.exec(`INSERT INTO passes (id, created_at, credits, funded_ever) VALUES ('pass_old', ?, 7, true)`, [at]);
    await ledger.exec(`INSERT INTO fundings (id, pass_id, credits, created_at) VALUES ('fund_old', 'pass_old', 10, ?)`, [at]);
    await ledger.exec(
      `INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ('key_old', 'pass_old', decode(repeat('00', 32), 'hex'), 'h', ?)`,
      [at],
    );
    for (const unit of ['chg_unit1', 'chg_unit2', 'chg_unit3']) {
      await ledger.exec(
        `INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, created_at, expires_at, group_id)
         VALUES (?, 'key_old', 'pass_old', 'credits', 1, 'reserved', ?, ?, clock_timestamp() + interval '1 hour', 'res_old')`,
        [unit, DAY, at],
      );
    }

    const store = await open({}, { freePerKey: 0 });
    const versions = await ledger.rows<{ version: number }>(`SELECT version FROM ${VERSION_TABLE} ORDER BY version`);
    expect(versions.map((r) => r.version)).toEqual(Array.from(MIGRATIONS, (_, i) => i + 1));
    const sample = { reservedAt: NOW, channel: 'api' as const, ms: 5 };
    expect(await store.charges.commit('res_old', NOW, { sample, units: 1, answer: () => '{}' })).toEqual({ charged: true });
    expect((await store.passes.show('pass_old'))?.passCredits).toBe(9);

    const caller: Caller = { keyId: 'key_old', passId: 'pass_old', keyHint: 'h' };
    const one = okOf(await store.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW));
    expect(one.access).toEqual({ type: 'pass', passCredits: 8 });
    expect(await store.charges.commit(one.reservation.id, NOW, { sample, answer: () => '{}' })).toEqual({ charged: true });
    expect(await ledger.chargeStates()).toEqual({ committed: 2, released: 2 });
    expect(await ledger.audit()).toEqual([]);
  });
});

describe.skipIf(!POSTGRES)(`PostgreSQL: expiry of what a dead server left ${NEEDS_POSTGRES}`, () => {
  ownSchema();

  /** A reservation of `caller`, taken by `store`, and what the pass holds after. */
  const take = (store: Store, caller: Caller, depth: 'standard' | 'stress' = 'stress') =>
    store.charges.reserve({ caller, depth, ip: IP }, NOW).then(okOf);

  it("the periodic sweep also deletes the decision log's entries past the retention it was given", async () => {
    const store = await open({ decisionRetentionDays: 2 });
    const caller = await newCaller(store);
    await loggedAt(store, caller, new Date(Date.now() - 3 * 86_400_000), 'old');
    await loggedAt(store, caller, new Date(Date.now() - 86_400_000), 'young');
    await store.sweep();
    expect((await store.decisions.recent(caller.passId, 20)).map((d) => d.top)).toEqual(['young']);
  });

  it('a reservation lives for the decision deadline plus the margin, on the database clock', async () => {
    const store = await open({ decisionDeadlineMs: 30_000, expiryMarginMs: 60_000 });
    expect(store.expiryMs).toBe(90_000);
    const caller = await newCaller(store);
    // The lease starts when the database inserts the row: between these two readings of its clock.
    const before = await ledger.clockMicros();
    const r = await take(store, caller, 'standard');
    const after = await ledger.clockMicros();
    const [row] = await ledger.rows<{ start: number }>(
      `SELECT ${MICROS("expires_at - interval '90 seconds'")} AS start FROM charges WHERE id = ?`,
      [r.reservation.id],
    );
    expect(row.start).toBeGreaterThanOrEqual(before);
    expect(row.start).toBeLessThanOrEqual(after);
  });

  it('recoverInterrupted at a start releases only expired reservations, never a live server’s', async () => {
    const live = await open(); // default: 30 s + 60 s
    const dying = await open({ decisionDeadlineMs: 1, expiryMarginMs: 0 });
    const caller = await newCaller(live);
    await live.passes.fund(caller.passId, 20, new Date());
    const held = await take(live, caller);
    expect(await live.idempotency.begin(caller.keyId, 'live-one', 'h', NOW)).toEqual({ state: 'new' });
    const lost = await take(dying, caller);
    expect(await dying.idempotency.begin(caller.keyId, 'lost-one', 'h', NOW)).toEqual({ state: 'new' });
    await new Promise((resolve) => setTimeout(resolve, 20));

    const starting = await open(); // a third server starting now
    expect(await starting.recoverInterrupted()).toBe(1);
    const states = await ledger.rows<{ id: string; state: string; expired: boolean }>('SELECT id, state, expired FROM charges');
    expect(states).toEqual(
      expect.arrayContaining([
        { id: held.reservation.id, state: 'reserved', expired: false },
        { id: lost.reservation.id, state: 'released', expired: true },
      ]),
    );
    expect((await starting.keys.usage(caller, NOW)).passCredits).toBe(15);
    // The live server's running record still blocks its retries; the dead one's no longer does.
    expect(await starting.idempotency.begin(caller.keyId, 'live-one', 'h', NOW)).toEqual({ state: 'in_progress' });
    expect(await starting.idempotency.begin(caller.keyId, 'lost-one', 'h', NOW)).toEqual({ state: 'new' });
    // The live server finishes normally.
    await live.charges.commit(held.reservation.id, NOW);
    expect((await live.keys.usage(caller, NOW)).passCredits).toBe(15);
    expect(await ledger.audit()).toEqual([]);
  });

  it('another server’s periodic sweep releases an expired reservation; the late commit does not charge', async () => {
    const stalled = await open({ decisionDeadlineMs: 50, expiryMarginMs: 150 });
    const sweeper = await open({ sweepIntervalMs: 50 });
    const caller = await newCaller(stalled);
    await stalled.passes.fund(caller.passId, 10, new Date());
    const credits = await take(stalled, caller);
    const free = await take(stalled, caller, 'standard');
    expect(await sweeper.keys.usage(caller, NOW)).toEqual({ freeUsed: 1, passCredits: 5 });

    // Nobody calls anything: the sweeper's timer finds them once expired.
    await eventually(async () => !(await ledger.chargeStates()).reserved, 'the sweep to release both reservations');
    expect(await ledger.chargeStates()).toEqual({ released: 2 });
    expect(await sweeper.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 10 });

    // The stalled server wakes up and commits (or releases): nothing moves again, and it is told so.
    expect(await stalled.charges.commit(credits.reservation.id, new Date())).toEqual({
      charged: false,
      access: { type: 'pass', passCredits: 10 },
    });
    expect(await stalled.charges.commit(free.reservation.id, new Date())).toEqual({
      charged: false,
      access: { type: 'free', freeRemaining: 20 },
    });
    await stalled.charges.release(credits.reservation.id, new Date());
    expect(await ledger.chargeStates()).toEqual({ released: 2 });
    expect(await stalled.keys.usage(caller, NOW)).toEqual({ freeUsed: 0, passCredits: 10 });
    expect(await ledger.rows('SELECT CAST(count(*) AS INTEGER) AS n FROM charges WHERE expired')).toEqual([{ n: 2 }]);
    expect(await ledger.audit()).toEqual([]);
  });

  it('a commit that comes first keeps the charge: the sweep passes it by', async () => {
    const store = await open({ decisionDeadlineMs: 1, expiryMarginMs: 0 });
    const caller = await newCaller(store);
    await store.passes.fund(caller.passId, 5, new Date());
    const r = await take(store, caller);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.charges.commit(r.reservation.id, NOW)).toEqual({ charged: true }); // expired, but not yet swept: an honest, single charge
    expect(await store.recoverInterrupted()).toBe(0);
    expect(await ledger.chargeStates()).toEqual({ committed: 1 });
    expect((await store.keys.usage(caller, NOW)).passCredits).toBe(0);
    expect(await ledger.audit()).toEqual([]);
  });

  it('commits racing sweeps from two servers: each charge settles once, and the books balance', async () => {
    const racer = await open({ decisionDeadlineMs: 1, expiryMarginMs: 0 });
    const sweepers = [await open(), await open()];
    const caller = await newCaller(racer);
    await racer.passes.fund(caller.passId, 300, new Date());
    const reservations = await Promise.all(Array.from({ length: 60 }, () => take(racer, caller)));
    await new Promise((resolve) => setTimeout(resolve, 20)); // all expired now
    let charged = 0;
    const sweeps = await Promise.all([
      ...reservations.map((r) =>
        racer.charges.commit(r.reservation.id, new Date()).then((o) => {
          charged += o.charged ? 1 : 0;
          return 0;
        }),
      ),
      sweepers[0].recoverInterrupted(),
      sweepers[1].recoverInterrupted(),
    ]);
    const released = sweeps.reduce((a, b) => a + b, 0);
    const states = await ledger.chargeStates();
    // Each commit says what happened to its charge.
    expect(charged).toBe(states.committed ?? 0);
    expect((states.committed ?? 0) + (states.released ?? 0)).toBe(60);
    expect(states.released ?? 0).toBe(released);
    expect((await racer.keys.usage(caller, NOW)).passCredits).toBe(300 - 5 * (states.committed ?? 0));
    expect(await ledger.audit()).toEqual([]);
  });

  it('close stops the sweep and ends the pool', async () => {
    const store = await open({ sweepIntervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.close();
    await store.close(); // twice is fine
    await expect(store.passes.create(new Date())).rejects.toThrow();
  });
});
