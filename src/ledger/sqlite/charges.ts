import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { CommitOutcome, Limits, Refusal, ReserveOutcome, ReserveRequest } from '../store.js';
import { type ChargeRow, STANDARD_COST, STRESS_COST } from '../rules.js';
import { ipFingerprint, newId } from './ids.js';

export { STANDARD_COST, STRESS_COST };

/**
 * The money path: reserve, commit, release and start-up recovery. Every transition
 * is one IMMEDIATE transaction (the write lock is taken at BEGIN, so two connections
 * cannot both read a balance and then both spend it), and every write carries its
 * own guard, checked by the number of rows it changed. Under the lock the guards
 * cannot fail; if one ever does, the transaction throws and rolls back whole.
 */
export class Charges {
  private readonly s: Record<string, Statement>;
  // Made once: better-sqlite3 builds four wrapped functions per `db.transaction()` call.
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
      insert: p(`INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at)
                 VALUES (?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?)`),
      commit: p(`UPDATE charges SET state = 'committed', settled_at = ? WHERE id = ? AND state = 'reserved'`),
      charge: p('SELECT kind, key_id, pass_id, day, state FROM charges WHERE id = ?'),
      settleReleased: p(`UPDATE charges SET state = 'released', settled_at = ? WHERE id = ? AND state = 'reserved'
                         RETURNING kind, cost, key_id, pass_id, day, ip_fingerprint`),
      giveKey: p('UPDATE free_usage SET used = used - 1 WHERE key_id = ? AND day = ? AND used > 0'),
      giveIp: p('UPDATE ip_usage SET used = used - 1 WHERE ip_fingerprint = ? AND day = ? AND used > 0'),
      giveSite: p('UPDATE site_usage SET used = used - 1 WHERE day = ? AND used > 0'),
      giveCredits: p('UPDATE passes SET credits = credits + ? WHERE id = ?'),
      reserved: p(`SELECT id FROM charges WHERE state = 'reserved'`),
      // ISO 8601 UTC strings of one fixed width sort as the instants they name.
      expired: p(`SELECT id FROM charges WHERE state = 'reserved' AND expires_at < ?`),
    };
    this.releaseTx = db.transaction((id: string, settledAt: string) => this.releaseOne(id, settledAt));
  }

  /**
   * Takes what a decision costs, inside the caller's IMMEDIATE transaction (a savepoint
   * of a group, group-commit.ts): the write lock is held from its BEGIN, so the balances
   * read here still hold when they are spent.
   */
  reserve(request: ReserveRequest, now: Date): ReserveOutcome {
    return this.decide(request, now);
  }

  /**
   * reserved → committed, inside the caller's transaction (the balance already moved at
   * reserve). `fresh`: this call settled it, or nothing was charged, so whatever goes
   * with the commit is to be written; false when it was committed before.
   */
  settle(reservationId: string, now: Date): { outcome: CommitOutcome; fresh: boolean } {
    if (this.s.commit.run(now.toISOString(), reservationId).changes === 1) return { outcome: { charged: true }, fresh: true };
    const row = this.s.charge.get(reservationId) as (Omit<ChargeRow, 'cost' | 'ip_fingerprint'> & { state: string }) | undefined;
    if (row?.state === 'committed') return { outcome: { charged: true }, fresh: false };
    if (!row) return { outcome: { charged: false, access: null }, fresh: true };
    // Released before the commit came: served, never charged. What the caller holds now:
    if (row.kind === 'credits') {
      const pass = this.s.pass.get(row.pass_id) as { credits: number };
      return { outcome: { charged: false, access: { type: 'pass', passCredits: pass.credits } }, fresh: true };
    }
    const used = this.used(this.s.keyUsed.get(row.key_id, row.day));
    return { outcome: { charged: false, access: { type: 'free', freeRemaining: Math.max(0, this.limits.freePerKey - used) } }, fresh: true };
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
        for (const { id } of rows) this.releaseOne(id, settledAt);
        return rows.length;
      })
      .immediate();
  }

  private decide({ caller, depth, ip, day }: ReserveRequest, now: Date): ReserveOutcome {
    const createdAt = now.toISOString();
    const expiresAt = new Date(now.getTime() + this.expiryMs).toISOString();
    const pass = this.s.pass.get(caller.passId) as { credits: number; funded_ever: number } | undefined;
    if (!pass) throw new Error(`Pass ${caller.passId} of key ${caller.keyId} does not exist.`);
    const refuse = (code: Refusal): ReserveOutcome => ({ ok: false, code });

    const takeCredits = (cost: number): ReserveOutcome => {
      this.expectOne(this.s.takeCredits.run({ cost, pass: caller.passId }), 'pass credits');
      const id = newId('chg');
      this.s.insert.run(id, caller.keyId, caller.passId, 'credits', cost, day, null, createdAt, expiresAt);
      return {
        ok: true,
        reservation: { id, kind: 'credits', cost },
        access: { type: 'pass', passCredits: pass.credits - cost },
      };
    };

    if (depth === 'stress') {
      if (pass.credits >= STRESS_COST) return takeCredits(STRESS_COST);
      return refuse(pass.credits === 0 ? 'pass_required' : 'insufficient_credits');
    }

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
        const id = newId('chg');
        this.s.insert.run(id, caller.keyId, caller.passId, 'free', STANDARD_COST, day, ipPrint, createdAt, expiresAt);
        return {
          ok: true,
          reservation: { id, kind: 'free', cost: STANDARD_COST },
          access: { type: 'free', freeRemaining: freePerKey - keyUsed - 1 },
        };
      }
      // The site's free limits hold back free decisions only; a pass pays its way past them.
      return pass.credits >= STANDARD_COST ? takeCredits(STANDARD_COST) : refuse('rate_limited');
    }

    if (pass.credits >= STANDARD_COST) return takeCredits(STANDARD_COST);
    return refuse(pass.funded_ever ? 'insufficient_credits' : 'free_limit_reached');
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
