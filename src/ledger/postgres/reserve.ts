import type pg from 'pg';
import type { Refusal, ReserveOutcome, ReserveRequest } from '../charges.js';
import { ipFingerprint, newId } from '../ids.js';
import { type ChargeRow, groupReservation, refuse, STANDARD_COST, STRESS_COST, UnitRefused, unitsOf } from '../rules.js';
import type { Limits } from '../store.js';
import { expectOne, SQL } from './charge-sql.js';
import { isConnectionLoss, queryAgain, transaction } from './database.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

/** Taking what a decision costs on PostgreSQL (charges.ts describes the locks and guards). */
export class PgReserve {
  /** Per pass, the tail of this process's reserves of it (see `onePerPass`). */
  private readonly passQueues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: Limits,
    /** How long a reservation lives: the decision deadline plus a margin. */
    private readonly ttlMs: number,
  ) {}

  reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
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
    const { caller, depth, ip } = request;
    const day = utcDay(now);
    const { freePerKey, freePerIp, freePerSite } = this.limits;
    const cost = depth === 'stress' ? STRESS_COST : STANDARD_COST;
    const params = [
      id,
      caller.keyId,
      caller.passId,
      depth === 'stress',
      cost,
      ipFingerprint(ip),
      day,
      now.toISOString(),
      this.ttlMs,
      freePerKey,
      freePerIp,
      freePerSite,
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
        return await transaction(this.pool, async (client) => (taken = await this.decide(client, request, now, id)));
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

  private async decide(client: pg.PoolClient, request: ReserveRequest, now: Date, id: string): Promise<ReserveOutcome> {
    const { caller, depth } = request;
    const createdAt = now.toISOString();
    const day = utcDay(now);
    const units = unitsOf(request);
    const pass = (await client.query<{ credits: number; funded_ever: boolean; live: boolean }>(SQL.lockPass, [caller.passId, caller.keyId]))
      .rows[0];
    if (!pass) throw new Error(`Pass ${caller.passId} of key ${caller.keyId} does not exist.`);
    if (!pass.live) return refuse('key_revoked');
    const charge: NewCharge = {
      client,
      caller,
      createdAt,
      group: units > 1 ? id : null,
      id,
      credits: pass.credits,
      fundedEver: pass.funded_ever,
    };

    if (depth === 'stress') {
      if (pass.credits >= STRESS_COST) return this.takeCredits(charge, STRESS_COST, day);
      return refuse(pass.credits === 0 ? 'pass_required' : 'insufficient_credits');
    }
    if (units === 1) return this.standardUnit(charge, request, day);
    // Each unit as a standard decision of its own; the first refused one refuses them all.
    const taken: ReserveOutcome[] = [];
    for (let i = 0; i < units; i++) {
      const unit = await this.standardUnit(charge, request, day);
      if (!unit.ok) throw new UnitRefused(unit.code);
      taken.push(unit);
    }
    return groupReservation(id, taken);
  }

  /** One standard decision's unit: free while the key's allowance and the site's limits allow, else a credit. */
  private async standardUnit(charge: NewCharge, { caller, ip }: ReserveRequest, day: string): Promise<ReserveOutcome> {
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
