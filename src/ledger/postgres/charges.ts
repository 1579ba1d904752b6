import type pg from 'pg';
import type { Access } from '../../contract/index.js';
import {
  type ChargeRow,
  groupReservation,
  type MetricsColumns,
  refuse,
  STANDARD_COST,
  STRESS_COST,
  UnitRefused,
  unitsKept,
  unitsOf,
} from '../rules.js';
import { ipFingerprint, newId } from '../sqlite/ids.js';
import type { Caller, CommitOutcome, Limits, Refusal, ReserveOutcome, ReserveRequest } from '../store.js';
import { isConnectionLoss, prepared, queryAgain, transaction } from './database.js';

/** Every guarded counter write: the first unit of a day inserts the row, later ones pass the guard or change nothing. */
const SQL = prepared('charges', {
  // The whole of a reserve, in the database (migrations.ts, step 7): one round trip,
  // for a reserve of one unit.
  reserve: 'SELECT outcome, remaining FROM reserve_charge($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
  // A commit with its metrics sample, one statement (its own transaction); no row when
  // the charge was not reserved, and the general path settles it.
  commitWithSample: `WITH settled AS (
                       UPDATE charges SET state = 'committed', settled_at = $2 WHERE id = $1 AND state = 'reserved' RETURNING id
                     )
                     INSERT INTO metrics (day, channel, samples, total_ms, uncharged) SELECT $3, $4, 1, $5, 0 FROM settled
                     ON CONFLICT (day, channel) DO UPDATE SET samples = metrics.samples + 1,
                       total_ms = metrics.total_ms + excluded.total_ms
                     RETURNING samples, total_ms, uncharged`,
  channelMetrics: 'SELECT samples, total_ms, uncharged FROM metrics WHERE day = $1 AND channel = $2',
  // The statement path, for a reserve of several units (a group). NO KEY UPDATE: the
  // row lock that orders every reserve of one pass (and so of its keys), on either
  // path, without blocking inserts elsewhere that merely reference the pass.
  lockPass: 'SELECT credits, funded_ever FROM passes WHERE id = $1 FOR NO KEY UPDATE',
  takeKey: `INSERT INTO free_usage (key_id, day, used) VALUES ($1, $2, 1)
            ON CONFLICT (key_id, day) DO UPDATE SET used = free_usage.used + 1 WHERE free_usage.used < $3
            RETURNING used`,
  // A limit of 0 means no limit.
  takeIp: `INSERT INTO ip_usage (ip_fingerprint, day, used) VALUES ($1, $2, 1)
           ON CONFLICT (ip_fingerprint, day) DO UPDATE SET used = ip_usage.used + 1
           WHERE $3::int = 0 OR ip_usage.used < $3::int`,
  takeSite: `INSERT INTO site_usage (day, used) VALUES ($1, 1)
             ON CONFLICT (day) DO UPDATE SET used = site_usage.used + 1
             WHERE $2::int = 0 OR site_usage.used < $2::int`,
  takeCredits: 'UPDATE passes SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING credits',
  insert: `INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at, group_id)
           VALUES ($1, $2, $3, $4, $5, 'reserved', $6, $7, $8,
                   clock_timestamp() + $9::double precision * interval '1 millisecond', $10)`,
  commit: `UPDATE charges SET state = 'committed', settled_at = $2 WHERE id = $1 AND state = 'reserved'`,
  charge: 'SELECT kind, cost, key_id, pass_id, day, state FROM charges WHERE id = $1',
  // Free units first: a commit keeping fewer units than it reserved gives credits back first.
  // Locked, so a sweep releasing the group waits for the commit, or the commit for it.
  group: `SELECT id, kind, key_id, pass_id, day, state FROM charges WHERE group_id = $1
          ORDER BY kind = 'free' DESC, id FOR UPDATE`,
  exists: 'SELECT 1 FROM charges WHERE id = $1 OR group_id = $1 LIMIT 1',
  keyUsed: 'SELECT used FROM free_usage WHERE key_id = $1 AND day = $2',
  credits: 'SELECT credits FROM passes WHERE id = $1',
  // $3: released by expiry, which only an expired reservation can be.
  settleReleased: `UPDATE charges SET state = 'released', settled_at = coalesce($2, clock_timestamp()), expired = $3
                   WHERE (id = $1 OR group_id = $1) AND state = 'reserved' AND (NOT $3 OR expires_at < clock_timestamp())
                   RETURNING kind, cost, key_id, pass_id, day, ip_fingerprint`,
  giveKey: 'UPDATE free_usage SET used = used - 1 WHERE key_id = $1 AND day = $2 AND used > 0',
  giveIp: 'UPDATE ip_usage SET used = used - 1 WHERE ip_fingerprint = $1 AND day = $2 AND used > 0',
  giveSite: 'UPDATE site_usage SET used = used - 1 WHERE day = $1 AND used > 0',
  giveCredits: 'UPDATE passes SET credits = credits + $2 WHERE id = $1',
  // A group's units expire together and are released together, under the group's id.
  expired: `SELECT coalesce(group_id, id) AS id FROM charges WHERE state = 'reserved' AND expires_at < clock_timestamp()
            GROUP BY coalesce(group_id, id) ORDER BY min(expires_at) LIMIT $1`,
});

const SWEEP_BATCH = 200;

/**
 * The money path on PostgreSQL: reserve, commit, release and the release of expired
 * reservations. READ COMMITTED, with row locks and guarded writes:
 *
 * - reserve locks the pass row (`FOR NO KEY UPDATE`) first, so reserves of one pass,
 *   from any server, run one at a time and see its current balance and key counters;
 *   then the guarded upserts of the free counters (key, IP, site — shared by all
 *   passes, so the guard itself decides, under the row lock the upsert takes) or the
 *   guarded credits UPDATE; then the charge row. For one unit: one statement, the
 *   function reserve_charge (migrations.ts, step 7), so one round trip. For several
 *   (a group, one row per unit tied by group_id): the same steps for each unit as
 *   statements of one transaction, which a refused unit rolls back whole.
 * - commit is one guarded UPDATE (`state = 'reserved'`): a charge settles once.
 * - release (by its server, or by expiry from any server) settles the charge with a
 *   guarded UPDATE, then gives back exactly what it took, in the same transaction.
 *
 * Locks are always taken in the order pass → key counter → IP counter → site counter
 * (a release takes its charge row first, which no reserve waits for), so two
 * transactions never wait on each other in a cycle; a deadlock or serialization
 * failure, should one happen anyway, rolls back whole and is retried.
 */
export class PgCharges {
  /** Per pass, the tail of this process's reserves of it (see `onePerPass`). */
  private readonly passQueues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: Limits,
    /** How long a reservation lives: the decision deadline plus a margin. */
    private readonly ttlMs: number,
  ) {}

  async reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    return this.onePerPass(request.caller.passId, () => this.reserveNow(request, now));
  }

  /**
   * Reserves of one pass wait for each other on its row lock anyway; queued here
   * first, a burst on one hot pass holds one pooled connection of this process, not
   * all of them, and reserves of every other pass keep theirs.
   */
  private onePerPass<T>(passId: string, work: () => Promise<T>): Promise<T> {
    const before = this.passQueues.get(passId) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => {});
    this.passQueues.set(passId, tail);
    void tail.then(() => {
      if (this.passQueues.get(passId) === tail) this.passQueues.delete(passId);
    });
    return run;
  }

  private async reserveNow(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    if (unitsOf(request) > 1) return this.reserveGroup(request, now);
    // The charge's id is chosen once, so a reserve whose answer was lost with its
    // connection can tell whether it happened: its charge row is there, or it runs again.
    const id = newId('chg');
    const { caller, depth, ip, day } = request;
    const { freePerKey, freePerIp, freePerSite } = this.limits;
    const cost = depth === 'stress' ? STRESS_COST : STANDARD_COST;
    const params = [
      id, caller.keyId, caller.passId, depth === 'stress', cost, ipFingerprint(ip), day,
      now.toISOString(), this.ttlMs, freePerKey, freePerIp, freePerSite,
    ];
    for (let attempt = 1; ; attempt++) {
      try {
        const { rows } = await this.pool.query<{ outcome: string; remaining: number | null }>(SQL.reserve, params);
        return outcomeOf(id, cost, rows[0]);
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
        const taken = await this.taken(id);
        if (taken) return taken;
      }
    }
  }

  /**
   * A reserve of several standard units (a group): the statement path, in one
   * transaction. reserve_charge takes one unit; this takes them in turn under the
   * same lock on the pass row, with the same guarded counter writes in the same order
   * (pass, key, IP, site), so the two paths serialise on a pass exactly as two
   * reserves of one path do, and the books cannot tell which path wrote a charge.
   */
  private async reserveGroup(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    // The group's id is chosen once, so a reserve whose COMMIT lost its connection can
    // tell whether it committed: its rows are there, or it runs again.
    const id = newId('res');
    let taken: ReserveOutcome | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await transaction(this.pool, async (client) => (taken = await this.decide(client, request, now.toISOString(), id)));
      } catch (error) {
        // One unit of several could not be paid: the rollback gave back those taken.
        if (error instanceof UnitRefused) return { ok: false, code: error.code };
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
        if (taken?.ok && (await queryAgain(this.pool, SQL.exists, [id])).rowCount === 1) return taken;
      }
    }
  }

  /**
   * A reservation made by a reserve whose answer was lost, or null when it made none.
   * What the caller holds is read now (the figure the answer would have carried, less
   * whatever has happened since).
   */
  private async taken(id: string): Promise<ReserveOutcome | null> {
    const row = (await queryAgain<ChargeRow>(this.pool, SQL.charge, [id])).rows[0];
    if (!row) return null;
    const reservation = { id, kind: row.kind, cost: row.cost };
    if (row.kind === 'credits') {
      const pass = (await queryAgain<{ credits: number }>(this.pool, SQL.credits, [row.pass_id])).rows[0];
      return { ok: true, reservation, access: { type: 'pass', passCredits: pass.credits } };
    }
    const used = (await queryAgain<{ used: number }>(this.pool, SQL.keyUsed, [row.key_id, row.day])).rows[0]?.used ?? 0;
    return { ok: true, reservation, access: { type: 'free', freeRemaining: Math.max(0, this.limits.freePerKey - used) } };
  }

  /**
   * reserved → committed together with the decision's metrics sample, in one
   * statement; returns the sample's channel row with it counted, or null when the
   * charge was not `reserved` (committed before, released, unknown: the caller's
   * transaction sorts it out).
   */
  async commitWithSample(reservationId: string, now: Date, sample: { day: string; channel: string; ms: number }): Promise<MetricsColumns | null> {
    const params = [reservationId, now.toISOString(), sample.day, sample.channel, Math.round(sample.ms)];
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query<MetricsColumns>(SQL.commitWithSample, params)).rows[0] ?? null;
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
        // Lost with its answer: it happened, sample and all, if the charge is committed
        // (nothing else commits it), and not at all if it is still reserved.
        const state = (await queryAgain<{ state: string }>(this.pool, SQL.charge, [reservationId])).rows[0]?.state;
        if (state === 'committed') return (await queryAgain<MetricsColumns>(this.pool, SQL.channelMetrics, [sample.day, sample.channel])).rows[0];
        if (state !== 'reserved') return null;
      }
    }
  }

  /**
   * reserved → committed, inside the caller's transaction. A reservation released
   * meanwhile (by expiry) stays released: never charged after all, and `access` says
   * what the caller holds now. `fresh`: this call settled it, or nothing was charged, so
   * whatever goes with the commit is to be written; false when it was committed before
   * (by an earlier run of this same commit whose COMMIT's answer was lost).
   */
  async settle(
    client: pg.PoolClient,
    reservationId: string,
    now: Date,
    units?: number,
  ): Promise<{ outcome: CommitOutcome; fresh: boolean }> {
    const group = (await client.query<GroupRow>(SQL.group, [reservationId])).rows;
    if (group.length > 0) return this.settleGroup(client, group, now, unitsKept(group.length, units));
    unitsKept(1, units);
    if ((await client.query(SQL.commit, [reservationId, now.toISOString()])).rowCount === 1) {
      return { outcome: { charged: true }, fresh: true };
    }
    const row = (await client.query<Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { state: string }>(SQL.charge, [reservationId])).rows[0];
    if (row?.state === 'committed') return { outcome: { charged: true }, fresh: false };
    if (!row) return { outcome: { charged: false, access: null }, fresh: true };
    return { outcome: { charged: false, access: await this.accessNow(client, row) }, fresh: true };
  }

  /** Of a group: the first `kept` units committed (free ones first), the rest released, in the caller's transaction. */
  private async settleGroup(client: pg.PoolClient, group: GroupRow[], now: Date, kept: number): Promise<{ outcome: CommitOutcome; fresh: boolean }> {
    const reserved = group.filter((row) => row.state === 'reserved');
    if (reserved.length === 0) {
      if (group.some((row) => row.state === 'committed')) return { outcome: { charged: true }, fresh: false };
      // Released whole (by expiry) before the commit came: what the caller holds now, credits first.
      return { outcome: { charged: false, access: await this.accessNow(client, group[group.length - 1]) }, fresh: true };
    }
    const settledAt = now.toISOString();
    for (const [i, row] of reserved.entries()) {
      if (i < kept) expectOne(await client.query(SQL.commit, [row.id, settledAt]), 'group commit');
      else await this.releaseOne(client, row.id, settledAt, false);
    }
    return { outcome: { charged: true }, fresh: true };
  }

  /** What the caller holds now, in the kind a charge took: its pass's credits, or its key's free decisions left that day. */
  private async accessNow(client: pg.PoolClient, row: Omit<ChargeRow, 'cost' | 'ip_fingerprint'>): Promise<Access> {
    if (row.kind === 'credits') {
      const pass = (await client.query<{ credits: number }>(SQL.credits, [row.pass_id])).rows[0];
      return { type: 'pass', passCredits: pass.credits };
    }
    const used = (await client.query<{ used: number }>(SQL.keyUsed, [row.key_id, row.day])).rows[0]?.used ?? 0;
    return { type: 'free', freeRemaining: Math.max(0, this.limits.freePerKey - used) };
  }

  async release(reservationId: string, now: Date): Promise<void> {
    // Guarded: running it again after a COMMIT that lost its connection gives nothing back twice.
    for (let attempt = 1; ; attempt++) {
      try {
        await transaction(this.pool, (client) => this.releaseOne(client, reservationId, now.toISOString(), false));
        return;
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * Releases every reservation whose expiry has passed, each in its own short
   * transaction (any number of servers may sweep at once: the guard lets one win).
   * Returns how many this call released.
   */
  async releaseExpired(): Promise<number> {
    let released = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ id: string }>(SQL.expired, [SWEEP_BATCH]);
      let progress = false;
      for (const { id } of rows) {
        if (await transaction(this.pool, (client) => this.releaseOne(client, id, null, true))) {
          released++;
          progress = true;
        }
      }
      // A short batch was the last; a full one without progress would only repeat itself.
      if (rows.length < SWEEP_BATCH || !progress) return released;
    }
  }

  private async decide(client: pg.PoolClient, request: ReserveRequest, createdAt: string, id: string): Promise<ReserveOutcome> {
    const { caller, depth } = request;
    const units = unitsOf(request);
    const pass = (await client.query<{ credits: number; funded_ever: boolean }>(SQL.lockPass, [caller.passId])).rows[0];
    if (!pass) throw new Error(`Pass ${caller.passId} of key ${caller.keyId} does not exist.`);
    const charge: NewCharge = { client, caller, createdAt, group: units > 1 ? id : null, id, credits: pass.credits, fundedEver: pass.funded_ever };

    if (depth === 'stress') {
      if (pass.credits >= STRESS_COST) return this.takeCredits(charge, STRESS_COST, request.day);
      return refuse(pass.credits === 0 ? 'pass_required' : 'insufficient_credits');
    }
    if (units === 1) return this.standardUnit(charge, request);
    // Each unit as a standard decision of its own; the first refused one refuses them all.
    const taken: ReserveOutcome[] = [];
    for (let i = 0; i < units; i++) {
      const unit = await this.standardUnit(charge, request);
      if (!unit.ok) throw new UnitRefused(unit.code);
      taken.push(unit);
    }
    return groupReservation(id, taken);
  }

  /** One standard decision's unit: free while the key's allowance and the site's limits allow, else a credit. */
  private async standardUnit(charge: NewCharge, { caller, ip, day }: ReserveRequest): Promise<ReserveOutcome> {
    const { client } = charge;
    const { freePerKey, freePerIp, freePerSite } = this.limits;
    const key = freePerKey > 0 ? await client.query<{ used: number }>(SQL.takeKey, [caller.keyId, day, freePerKey]) : null;
    if (key?.rowCount === 1) {
      // The key has a free unit left; the site's limits, shared by every pass, decide by their guards.
      const ipPrint = ipFingerprint(ip);
      const ipTaken = (await client.query(SQL.takeIp, [ipPrint, day, freePerIp])).rowCount === 1;
      const siteTaken = ipTaken && (await client.query(SQL.takeSite, [day, freePerSite])).rowCount === 1;
      if (siteTaken) {
        const id = await this.insert(charge, 'free', STANDARD_COST, day, ipPrint);
        return {
          ok: true,
          reservation: { id, kind: 'free', cost: STANDARD_COST },
          access: { type: 'free', freeRemaining: freePerKey - key.rows[0].used },
        };
      }
      // Put back what this transaction took (its rows are still locked by it).
      await client.query(SQL.giveKey, [caller.keyId, day]);
      if (ipTaken) await client.query(SQL.giveIp, [ipPrint, day]);
      // The site's free limits hold back free decisions only; a pass pays its way past them.
      return charge.credits >= STANDARD_COST ? this.takeCredits(charge, STANDARD_COST, day) : refuse('rate_limited');
    }

    if (charge.credits >= STANDARD_COST) return this.takeCredits(charge, STANDARD_COST, day);
    return refuse(charge.fundedEver ? 'insufficient_credits' : 'free_limit_reached');
  }

  private async takeCredits(charge: NewCharge, cost: number, day: string): Promise<ReserveOutcome> {
    const taken = await charge.client.query<{ credits: number }>(SQL.takeCredits, [charge.caller.passId, cost]);
    expectOne(taken, 'pass credits'); // the pass row is locked: the balance read above still holds
    charge.credits = taken.rows[0].credits;
    const id = await this.insert(charge, 'credits', cost, day, null);
    return { ok: true, reservation: { id, kind: 'credits', cost }, access: { type: 'pass', passCredits: charge.credits } };
  }

  /** A charge row: the reserve's own id for one unit, a fresh one for each unit of a group. */
  private async insert(charge: NewCharge, kind: 'free' | 'credits', cost: number, day: string, ipPrint: Buffer | null): Promise<string> {
    const { client, caller, createdAt, group } = charge;
    const id = group ? newId('chg') : charge.id;
    await client.query(SQL.insert, [id, caller.keyId, caller.passId, kind, cost, day, ipPrint, createdAt, this.ttlMs, group]);
    return id;
  }

  /** Settles one reservation as released and gives back what it took; false when it was not `reserved` (or, by expiry, not yet expired). */
  private async releaseOne(client: pg.PoolClient, id: string, settledAt: string | null, byExpiry: boolean): Promise<boolean> {
    const { rows } = await client.query<ChargeRow>(SQL.settleReleased, [id, settledAt, byExpiry]);
    // None: unknown, already settled, or (by expiry) not expired after all.
    for (const row of rows) {
      if (row.kind === 'credits') {
        expectOne(await client.query(SQL.giveCredits, [row.pass_id, row.cost]), 'pass refund');
        continue;
      }
      // Counters of the charge's own day, even when released after midnight.
      await client.query(SQL.giveKey, [row.key_id, row.day]);
      await client.query(SQL.giveIp, [row.ip_fingerprint, row.day]);
      await client.query(SQL.giveSite, [row.day]);
    }
    return rows.length > 0;
  }
}

/** What reserve_charge answered, as the store's outcome. */
function outcomeOf(id: string, cost: number, row: { outcome: string; remaining: number | null }): ReserveOutcome {
  switch (row.outcome) {
    case 'free':
      return { ok: true, reservation: { id, kind: 'free', cost }, access: { type: 'free', freeRemaining: row.remaining as number } };
    case 'pass':
      return { ok: true, reservation: { id, kind: 'credits', cost }, access: { type: 'pass', passCredits: row.remaining as number } };
    default:
      return { ok: false, code: row.outcome as Refusal };
  }
}

function expectOne(result: pg.QueryResult, what: string): void {
  if (result.rowCount !== 1) throw new Error(`Ledger guard failed on ${what}; the transaction was rolled back.`);
}

type GroupRow = Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { id: string; state: string };

/** What every unit of one reserve shares; `credits` follows the pass's balance as units take it. */
interface NewCharge {
  client: pg.PoolClient;
  caller: Caller;
  createdAt: string;
  /** The reserve's id: its one charge's, or the group's naming several units. */
  id: string;
  group: string | null;
  credits: number;
  fundedEver: boolean;
}
