import type pg from 'pg';
import type { DailyMetrics, MetricsRow } from '../metrics.js';
import { CHANNELS, metricsRow, type MetricsColumns } from '../rules.js';
import { SUMS } from './charge-sql.js';
import { prepared, queryAgain } from './database.js';
import type { Channel } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

const SQL = prepared('metrics', {
  metrics: `SELECT channel, ${SUMS} FROM metrics WHERE day = $1 GROUP BY channel`,
});

/** The day's processing-time samples per channel, written by the commits of decisions (charges.ts). */
export class PgMetrics implements DailyMetrics {
  constructor(private readonly pool: pg.Pool) {}

  async day(now: Date): Promise<MetricsRow[]> {
    const { rows } = await queryAgain<MetricsColumns & { channel: Channel }>(this.pool, SQL.metrics, [utcDay(now)]);
    return CHANNELS.map((channel) =>
      metricsRow(
        channel,
        rows.find((r) => r.channel === channel),
      ),
    );
  }
}
