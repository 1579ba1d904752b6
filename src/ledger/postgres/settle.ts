import type pg from 'pg';
import type { Access } from '../../contract/index.js';
import type { CommitOutcome } from '../charges.js';
import { type ChargeRow, type MetricsColumns, unitsKept } from '../rules.js';
import type { Limits } from '../store.js';
import { expectOne, type GroupRow, type SettledRow, SQL, SWEEP_BATCH } from './charge-sql.js';
import { isConnectionLoss, queryAgain, transaction } from './database.js';

/**
 * Settling reservations on PostgreSQL: committed (alone, or with the decision's
 * sample in one statement), released by their server, or released by expiry from
 * any server. charges.ts describes the locks and guards.
 */
export class PgSettle {
  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: Limits,
  ) {}

  /**
   * reserved → committed together with the decision's metrics sample, in one
   * statement; returns the sample's channel row with it counted, or null when the
   * charge was not `reserved` (committed before, released, unknown: the caller's
   * transaction sorts it out).
   */
  async commitWithSample(
    reservationId: string,
    now: Date,
    sample: { day: string; channel: string; ms: number },
  ): Promise<MetricsColumns | null> {
    const params = [reservationId, now.toISOString(), sample.day, sample.channel, Math.round(sample.ms)];
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query<MetricsColumns>(SQL.commitWithSample, params)).rows[0] ?? null;
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
        // Lost with its answer: it happened, sample and all, if the charge is committed
        // (nothing else commits it), and not at all if it is still reserved.
        const state = (await queryAgain<{ state: string }>(this.pool, SQL.charge, [reservationId])).rows[0]?.state;
        if (state === 'committed')
          return (await queryAgain<MetricsColumns>(this.pool, SQL.channelMetrics, [sample.day, sample.channel])).rows[0];
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
    const row = (await client.query<SettledRow & { state: string }>(SQL.charge, [reservationId])).rows[0];
    if (row?.state === 'committed') return { outcome: { charged: true }, fresh: false };
    if (!row) return { outcome: { charged: false, access: null }, fresh: true };
    return { outcome: { charged: false, access: await this.accessNow(client, row) }, fresh: true };
  }

  /** Of a group: the first `kept` units committed (free ones first), the rest released, in the caller's transaction. */
  private async settleGroup(
    client: pg.PoolClient,
    group: GroupRow[],
    now: Date,
    kept: number,
  ): Promise<{ outcome: CommitOutcome; fresh: boolean }> {
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
  private async accessNow(client: pg.PoolClient, row: SettledRow): Promise<Access> {
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
