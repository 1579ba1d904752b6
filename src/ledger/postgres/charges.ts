import type pg from 'pg';
import type { Charges, CommitOutcome, ReserveOutcome, ReserveRequest, Settlement } from '../charges.js';
import { checkSample, metricsRow, type MetricsColumns } from '../rules.js';
import type { Limits } from '../store.js';
import { isConnectionLoss, prepared, transaction } from './database.js';
import { DAY_TOTALS_WITH_OWN, METRICS_SHARD, SUMS } from './charge-sql.js';
import type { PgDecisions } from './decisions.js';
import type { PgIdempotency } from './idempotency.js';
import { PgReserve } from './reserve.js';
import { PgSettle } from './settle.js';
import { utcDay } from '../../contract/utc-day.js';

const SQL = prepared('settle', {
  sampleReturning: `WITH own AS (
                      INSERT INTO metrics (day, channel, shard, samples, total_ms, uncharged) VALUES ($1, $2, ${METRICS_SHARD}, 1, $3, $4)
                      ON CONFLICT (day, channel, shard) DO UPDATE
                      SET samples = metrics.samples + 1, total_ms = metrics.total_ms + excluded.total_ms,
                        uncharged = metrics.uncharged + excluded.uncharged
                      RETURNING day, channel, shard, samples, total_ms, uncharged
                    )
                    ${DAY_TOTALS_WITH_OWN}`,
  apiMetrics: `SELECT ${SUMS} FROM metrics WHERE day = $1 AND channel = 'api'`,
});

/**
 * The money path on PostgreSQL: reserve (reserve.ts), commit, release and the release
 * of expired reservations (settle.ts). READ COMMITTED, with row locks and guarded writes:
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
export class PgCharges implements Charges {
  private readonly reserving: PgReserve;
  private readonly settling: PgSettle;

  constructor(
    private readonly pool: pg.Pool,
    limits: Limits,
    /** How long a reservation lives: the decision deadline plus a margin. */
    ttlMs: number,
    private readonly idempotency: PgIdempotency,
    private readonly decisions: PgDecisions,
  ) {
    this.reserving = new PgReserve(pool, limits, ttlMs);
    this.settling = new PgSettle(pool, limits);
  }

  reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    return this.reserving.reserve(request, now);
  }

  /**
   * A decision's commit: the charge, the metrics sample and the answer kept for its
   * Idempotency-Key and its log entry, all or none; but an entry the log refuses is
   * rolled back alone, to a savepoint (decisions.ts), and the rest committed, so no
   * decision is served free for its log's sake. Usually one statement: an API
   * decision of one unit without an Idempotency-Key or a log entry whose charge is
   * still reserved is committed with its sample by `commitWithSample`. Anything else (a group of units kept in part and
   * given back in part, among others) takes a transaction.
   */
  async commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome> {
    const day = settlement && utcDay(settlement.sample.reservedAt);
    if (settlement) checkSample(settlement.sample.channel, settlement.sample.ms);
    // A reservation of several units (settlement.units given) settles its group in the transaction.
    const alone = settlement && !settlement.idempotency && !settlement.logged && settlement.units === undefined;
    if (settlement && day && alone && settlement.sample.channel === 'api') {
      const api = await this.settling.commitWithSample(reservationId, now, { day, channel: 'api', ms: settlement.sample.ms });
      if (api) {
        settlement.answer({ charged: true }, metricsRow('api', api));
        return { charged: true };
      }
    }
    // What the log refused, told only once the commit stands (an attempt run again starts afresh).
    let refused = null as { error: unknown } | null;
    const settle = () =>
      transaction(this.pool, async (client): Promise<CommitOutcome> => {
        refused = null;
        const { outcome, fresh } = await this.settling.settle(client, reservationId, now, settlement?.units);
        if (!settlement || !day || !fresh) return outcome;
        const { channel, ms } = settlement.sample;
        const uncharged = outcome.charged ? 0 : 1;
        const own = (await client.query<MetricsColumns>(SQL.sampleReturning, [day, channel, Math.round(ms), uncharged])).rows[0];
        const api = channel === 'api' ? own : (await client.query<MetricsColumns>(SQL.apiMetrics, [day])).rows[0];
        const body = settlement.answer(outcome, metricsRow('api', api));
        if (settlement.idempotency) {
          await this.idempotency.finish(settlement.idempotency.keyId, settlement.idempotency.idemKey, 200, body, client);
        }
        const { logged } = settlement;
        if (logged) refused = await this.decisions.record(client, () => logged(outcome), now);
        return outcome;
      });
    // The connection lost during COMMIT: it may have committed. Running it again tells:
    // the guard finds the charge committed (and writes nothing twice), or settles it now.
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await settle();
        if (refused) settlement?.unlogged?.(refused.error);
        return outcome;
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 3) throw error;
      }
    }
  }

  release(reservationId: string, now: Date): Promise<void> {
    return this.settling.release(reservationId, now);
  }

  /** Releases every reservation whose expiry has passed (on the database's clock); returns how many this call released. */
  releaseExpired(): Promise<number> {
    return this.settling.releaseExpired();
  }
}
