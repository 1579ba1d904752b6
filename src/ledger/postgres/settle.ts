import type pg from 'pg';
import { metricsRow, type MetricsColumns } from '../rules.js';
import type { CommitOutcome, Settlement } from '../store.js';
import type { PgCharges } from './charges.js';
import { isConnectionLoss, prepared, transaction } from './database.js';
import type { PgIdempotency } from './idempotency.js';

const SQL = prepared('settle', {
  sampleReturning: `INSERT INTO metrics (day, channel, samples, total_ms, uncharged) VALUES ($1, $2, 1, $3, $4)
                    ON CONFLICT (day, channel) DO UPDATE
                    SET samples = metrics.samples + 1, total_ms = metrics.total_ms + excluded.total_ms,
                      uncharged = metrics.uncharged + excluded.uncharged
                    RETURNING samples, total_ms, uncharged`,
  apiMetrics: `SELECT samples, total_ms, uncharged FROM metrics WHERE day = $1 AND channel = 'api'`,
});

/**
 * A decision's commit: the charge, the metrics sample and the answer kept for its
 * Idempotency-Key, all or none (Store.commit). Usually one statement: an API decision
 * of one unit without an Idempotency-Key whose charge is still reserved is committed
 * with its sample by PgCharges.commitWithSample. Anything else (a group of units kept
 * in part and given back in part, among others) takes a transaction.
 */
export async function commitDecision(
  pool: pg.Pool,
  charges: PgCharges,
  idempotency: PgIdempotency,
  { reservationId, now, settlement }: { reservationId: string; now: Date; settlement?: Settlement },
): Promise<CommitOutcome> {
  // A reservation of several units (settlement.units given) settles its group in the transaction.
  if (settlement && !settlement.idempotency && settlement.units === undefined && settlement.sample.channel === 'api') {
    const api = await charges.commitWithSample(reservationId, now, settlement.sample);
    if (api) {
      settlement.answer({ charged: true }, metricsRow('api', api));
      return { charged: true };
    }
  }
  const settle = () =>
    transaction(pool, async (client): Promise<CommitOutcome> => {
      const { outcome, fresh } = await charges.settle(client, reservationId, now, settlement?.units);
      if (!settlement || !fresh) return outcome;
      const { day, channel, ms } = settlement.sample;
      const uncharged = outcome.charged ? 0 : 1;
      const own = (await client.query<MetricsColumns>(SQL.sampleReturning, [day, channel, Math.round(ms), uncharged])).rows[0];
      const api = channel === 'api' ? own : (await client.query<MetricsColumns>(SQL.apiMetrics, [day])).rows[0];
      const body = settlement.answer(outcome, metricsRow('api', api));
      if (settlement.idempotency) {
        await idempotency.finish(settlement.idempotency.keyId, settlement.idempotency.idemKey, 200, body, client);
      }
      return outcome;
    });
  // The connection lost during COMMIT: it may have committed. Running it again tells:
  // the guard finds the charge committed (and writes nothing twice), or settles it now.
  for (let attempt = 1; ; attempt++) {
    try {
      return await settle();
    } catch (error) {
      if (!isConnectionLoss(error) || attempt >= 3) throw error;
    }
  }
}
