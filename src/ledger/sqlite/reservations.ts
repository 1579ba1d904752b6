import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Access } from '../../contract/index.js';
import type { CommitOutcome, ReserveOutcome, ReserveRequest } from '../charges.js';
import { ipFingerprint, newId } from '../ids.js';
import { type ChargeRow, groupReservation, refuse, STANDARD_COST, STRESS_COST, UnitRefused, unitsKept, unitsOf } from '../rules.js';
import type { Limits } from '../store.js';
import type { Caller } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

/**
 * The money path's rows, inside a transaction its caller opens (charges.ts, store.ts):
 * reserve, commit, release and start-up recovery. Every transition
 * is one IMMEDIATE transaction (the write lock is taken at BEGIN, so two connections
 * cannot both read a balance and then both spend it), and every write carries its
 * own guard, checked by the number of rows it changed. Under the lock the guards
 * cannot fail; if one ever does, the transaction throws and rolls back whole.
 */
export class Reservations {
  private readonly s: Record<string, Statement>;
  // Made once: better-sqlite3 builds four wrapped functions per `db.transaction()` call.
  // Called inside the caller's transaction, so better-sqlite3 runs it as a savepoint.
  private readonly reserveUnits: Transaction<(request: ReserveRequest, now: Date) => ReserveOutcome>;
  private readonly releaseTx: Transaction<(id: string, settledAt: string) => void>;

  constructor(
    private readonly db: Database,
    private readonly limits: Limits,
    /** Lifetime of a reservation: past it, only a release that was never written can hold it. */
    private readonly expiryMs: number,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      pass: p('SELECT credits, funded_ever FROM passes WHERE id = ?'),
      // The caller's pass, and whether its key is still active (keys.ts: a reserve checks).
      payer: p(`SELECT credits, funded_ever, EXISTS (SELECT 1 FROM keys WHERE id = ? AND revoked_at IS NULL) AS live
                FROM passes WHERE id = ?`),
      keyUsed: p('SELECT used FROM free_usage WHERE key_id = ? AND day = ?'),
      ipUsed: p('SELECT used FROM ip_usage WHERE ip_fingerprint = ? AND day = ?'),
      siteUsed: p('SELECT used FROM site_usage WHERE day = ?'),
      // The first unit of a day inserts the counter row; later ones pass the guard or change nothing.
      takeKey: p(`INSERT INTO free_usage (key_id, day, used) VALUES (@key, @day, 1)
                  ON CONFLICT (key_id, day) DO UPDATE SET used = used + 1 WHERE used < @limit`),
      // A limit of 0 means no limit.
      takeIp: p(`INSERT INTO ip_usage (ip_fingerprint, day, used) VALUES (@ip, @day, 1)
                 ON CONFLICT (ip_fingerprint, day) DO UPDATE SET used = used + 1 WHERE @limit = 0 OR used < @limit`),
      takeSite: p(`INSERT INTO site_usage (day, used) VALUES (@day, 1)
                   ON CONFLICT (day) DO UPDATE SET used = used + 1 WHERE @limit = 0 OR used < @limit`),
      takeCredits: p('UPDATE passes SET credits = credits - @cost WHERE id = @pass AND credits >= @cost'),
      insert: p(`INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at, group_id)
                 VALUES (?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?, ?)`),
      commit: p(`UPDATE charges SET state = 'committed', settled_at = ? WHERE id = ? AND state = 'reserved'`),
      charge: p('SELECT kind, key_id, pass_id, day, state FROM charges WHERE id = ?'),
      // Free units first: a commit keeping fewer units than it reserved gives credits back first.
      group: p(`SELECT id, kind, key_id, pass_id, day, state FROM charges WHERE group_id = ?
                ORDER BY kind = 'free' DESC, id`),
      members: p(`SELECT id FROM charges WHERE (id = ? OR group_id = ?) AND state = 'reserved'`),
      settleReleased: p(`UPDATE charges SET state = 'released', settled_at = ? WHERE id = ? AND state = 'reserved'
                         RETURNING kind, cost, key_id, pass_id, day, ip_fingerprint`),
      giveKey: p('UPDATE free_usage SET used = used - 1 WHERE key_id = ? AND day = ? AND used > 0'),
      giveIp: p('UPDATE ip_usage SET used = used - 1 WHERE ip_fingerprint = ? AND day = ? AND used > 0'),
      giveSite: p('UPDATE site_usage SET used = used - 1 WHERE day = ? AND used > 0'),
      giveCredits: p('UPDATE passes SET credits = credits + ? WHERE id = ?'),
      // Reservations, not rows: a group's units are released together, under the group's id.
      reserved: p(`SELECT DISTINCT coalesce(group_id, id) AS id FROM charges WHERE state = 'reserved'`),
      // ISO 8601 UTC strings of one fixed width sort as the instants they name.
      expired: p(`SELECT DISTINCT coalesce(group_id, id) AS id FROM charges WHERE state = 'reserved' AND expires_at < ?`),
    };
    this.reserveUnits = db.transaction((request: ReserveRequest, now: Date) => this.decide(request, now));
    this.releaseTx = db.transaction((id: string, settledAt: string) => this.releaseReservation(id, settledAt));
  }

  /**
   * Takes what a decision costs, inside the caller's IMMEDIATE transaction (a savepoint
   * of a group, group-commit.ts): the write lock is held from its BEGIN, so the balances
   * read here still hold when they are spent.
   */
  reserve(request: ReserveRequest, now: Date): ReserveOutcome {
    if (unitsOf(request) === 1) return this.decide(request, now);
    try {
      // Several units: in a savepoint of their own, so that one refused unit rolls back
      // those taken before it and leaves the rest of the caller's transaction as it was.
      return this.reserveUnits(request, now);
    } catch (error) {
      if (error instanceof UnitRefused) return { ok: false, code: error.code };
      throw error;
    }
  }

  /**
   * reserved → committed, inside the caller's transaction (the balance already moved at
   * reserve). `fresh`: this call settled it, or nothing was charged, so whatever goes
   * with the commit is to be written; false when it was committed before. Of a group,
   * the first `units` are committed (free ones first) and the rest released.
   */
  settle(reservationId: string, now: Date, units?: number): { outcome: CommitOutcome; fresh: boolean } {
    // Only a group's reservation (a `res_` id; a single charge's is `chg_`) has units to look up.
    if (reservationId.startsWith('res_')) {
      const group = this.s.group.all(reservationId) as (Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { id: string; state: string })[];
      if (group.length > 0) return this.settleGroup(group, now, unitsKept(group.length, units));
    }
    unitsKept(1, units);
    if (this.s.commit.run(now.toISOString(), reservationId).changes === 1) return { outcome: { charged: true }, fresh: true };
    const row = this.s.charge.get(reservationId) as (Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { state: string }) | undefined;
    if (row?.state === 'committed') return { outcome: { charged: true }, fresh: false };
    if (!row) return { outcome: { charged: false, access: null }, fresh: true };
    return { outcome: { charged: false, access: this.accessNow(row) }, fresh: true };
  }

  private settleGroup(
    group: (Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { id: string; state: string })[],
    now: Date,
    kept: number,
  ): { outcome: CommitOutcome; fresh: boolean } {
    const reserved = group.filter((row) => row.state === 'reserved');
    if (reserved.length === 0) {
      if (group.some((row) => row.state === 'committed')) return { outcome: { charged: true }, fresh: false };
      // Released whole before the commit came: what the caller holds now, credits first.
      return { outcome: { charged: false, access: this.accessNow(group[group.length - 1]) }, fresh: true };
    }
    const settledAt = now.toISOString();
    reserved.forEach((row, i) => {
      if (i < kept) this.expectOne(this.s.commit.run(settledAt, row.id), 'group commit');
      else this.releaseOne(row.id, settledAt);
    });
    return { outcome: { charged: true }, fresh: true };
  }

  /** What the caller holds now, in the kind a charge took: its pass's credits, or its key's free decisions left that day. */
  private accessNow(row: Omit<ChargeRow, 'cost' | 'ip_fingerprint'>): Access {
    if (row.kind === 'credits') {
      const pass = this.s.pass.get(row.pass_id) as { credits: number };
      return { type: 'pass', passCredits: pass.credits };
    }
    const used = this.used(this.s.keyUsed.get(row.key_id, row.day));
    return { type: 'free', freeRemaining: Math.max(0, this.limits.freePerKey - used) };
  }

  release(reservationId: string, now: Date): void {
    this.releaseTx.immediate(reservationId, now.toISOString());
  }

  /** Releases every reservation a dead process left behind; returns how many. */
  releaseAllReserved(now: Date): number {
    return this.releaseEach(() => this.s.reserved.all(), now);
  }

  /** Releases the reservations past their expiry: those whose release never landed. */
  releaseExpired(now: Date): number {
    return this.releaseEach(() => this.s.expired.all(now.toISOString()), now);
  }

  /** Releases what `select` finds, read and released in one transaction. */
  private releaseEach(select: () => unknown[], now: Date): number {
    const settledAt = now.toISOString();
    return this.db
      .transaction(() => {
        const rows = select() as { id: string }[];
        for (const { id } of rows) this.releaseReservation(id, settledAt);
        return rows.length;
      })
      .immediate();
  }

  private decide(request: ReserveRequest, now: Date): ReserveOutcome {
    const { caller, depth } = request;
    const day = utcDay(now);
    const units = unitsOf(request);
    const pass = this.s.payer.get(caller.keyId, caller.passId) as { credits: number; funded_ever: number; live: number } | undefined;
    if (!pass) throw new Error(`Pass ${caller.passId} of key ${caller.keyId} does not exist.`);
    if (!pass.live) return refuse('key_revoked');
    const group = units > 1 ? newId('res') : null;
    const charge: NewCharge = {
      caller,
      group,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.expiryMs).toISOString(),
      credits: pass.credits,
      fundedEver: pass.funded_ever === 1,
    };

    if (depth === 'stress') {
      if (pass.credits >= STRESS_COST) return this.takeCredits(charge, STRESS_COST, day);
      return refuse(pass.credits === 0 ? 'pass_required' : 'insufficient_credits');
    }
    if (!group) return this.standardUnit(charge, request, day);
    // Each unit as a standard decision of its own; the first refused one refuses them all.
    const taken = Array.from({ length: units }, () => {
      const unit = this.standardUnit(charge, request, day);
      if (!unit.ok) throw new UnitRefused(unit.code);
      return unit;
    });
    return groupReservation(group, taken);
  }

  /** One standard decision's unit: free while the key's allowance and the site's limits allow, else a credit. */
  private standardUnit(charge: NewCharge, { caller, ip }: ReserveRequest, day: string): ReserveOutcome {
    const { freePerKey, freePerIp, freePerSite } = this.limits;
    const keyUsed = this.used(this.s.keyUsed.get(caller.keyId, day));
    if (keyUsed < freePerKey) {
      const ipPrint = ipFingerprint(ip);
      const siteAllows =
        (freePerIp === 0 || this.used(this.s.ipUsed.get(ipPrint, day)) < freePerIp) &&
        (freePerSite === 0 || this.used(this.s.siteUsed.get(day)) < freePerSite);
      if (siteAllows) {
        this.expectOne(this.s.takeKey.run({ key: caller.keyId, day, limit: freePerKey }), 'key free allowance');
        this.expectOne(this.s.takeIp.run({ ip: ipPrint, day, limit: freePerIp }), 'per-IP free limit');
        this.expectOne(this.s.takeSite.run({ day, limit: freePerSite }), 'site free limit');
        const id = this.insert(charge, 'free', STANDARD_COST, day, ipPrint);
        return {
          ok: true,
          reservation: { id, kind: 'free', cost: STANDARD_COST },
          access: { type: 'free', freeRemaining: freePerKey - keyUsed - 1 },
        };
      }
      // The site's free limits hold back free decisions only; a pass pays its way past them.
      return charge.credits >= STANDARD_COST ? this.takeCredits(charge, STANDARD_COST, day) : refuse('rate_limited');
    }

    if (charge.credits >= STANDARD_COST) return this.takeCredits(charge, STANDARD_COST, day);
    return refuse(charge.fundedEver ? 'insufficient_credits' : 'free_limit_reached');
  }

  private takeCredits(charge: NewCharge, cost: number, day: string): ReserveOutcome {
    this.expectOne(this.s.takeCredits.run({ cost, pass: charge.caller.passId }), 'pass credits');
    charge.credits -= cost;
    const id = this.insert(charge, 'credits', cost, day, null);
    return { ok: true, reservation: { id, kind: 'credits', cost }, access: { type: 'pass', passCredits: charge.credits } };
  }

  private insert(charge: NewCharge, kind: 'free' | 'credits', cost: number, day: string, ipPrint: Buffer | null): string {
    const id = newId('chg');
    const { caller, createdAt, expiresAt, group } = charge;
    this.s.insert.run(id, caller.keyId, caller.passId, kind, cost, day, ipPrint, createdAt, expiresAt, group);
    return id;
  }

  /** Every unit of a reservation (one charge, or a group's) still reserved. */
  private releaseReservation(id: string, settledAt: string): void {
    for (const member of this.s.members.all(id, id) as { id: string }[]) this.releaseOne(member.id, settledAt);
  }

  private releaseOne(id: string, settledAt: string): void {
    const row = this.s.settleReleased.get(settledAt, id) as ChargeRow | undefined;
    if (!row) return; // unknown, or already committed/released: nothing to give back
    if (row.kind === 'credits') {
      this.expectOne(this.s.giveCredits.run(row.cost, row.pass_id), 'pass refund');
      return;
    }
    // Counters of the charge's own day, even when released after midnight.
    this.s.giveKey.run(row.key_id, row.day);
    this.s.giveIp.run(row.ip_fingerprint, row.day);
    this.s.giveSite.run(row.day);
  }

  private used(row: unknown): number {
    return (row as { used: number } | undefined)?.used ?? 0;
  }

  private expectOne(result: { changes: number }, what: string): void {
    if (result.changes !== 1) throw new Error(`Ledger guard failed on ${what}; the transaction was rolled back.`);
  }
}

/** What every unit of one reserve shares; `credits` follows the pass's balance as units take it. */
interface NewCharge {
  caller: Caller;
  /** The id naming the units of a reserve of several together; null for one. */
  group: string | null;
  createdAt: string;
  expiresAt: string;
  credits: number;
  fundedEver: boolean;
}
