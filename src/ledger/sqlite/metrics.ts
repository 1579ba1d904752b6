import type { Database, Statement } from 'better-sqlite3';
import type { DailyMetrics, MetricsRow } from '../metrics.js';
import { CHANNELS, metricsRow, type MetricsColumns } from '../rules.js';
import type { Transactions } from './transactions.js';
import type { Channel } from '../../contract/caller.js';
import { utcDay } from '../../contract/utc-day.js';

/**
 * The day's processing-time samples per channel: one row per day and channel, added to
 * by a decision's commit (`record` runs inside its transaction, charges.ts).
 */
export class SqliteMetrics implements DailyMetrics {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    private readonly tx: Transactions,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      sample: p(`INSERT INTO metrics (day, channel, samples, total_ms, uncharged) VALUES (?, ?, 1, ?, ?)
                 ON CONFLICT (day, channel) DO UPDATE SET samples = samples + 1, total_ms = total_ms + excluded.total_ms,
                   uncharged = uncharged + excluded.uncharged
                 RETURNING samples, total_ms, uncharged`),
      metrics: p('SELECT channel, samples, total_ms, uncharged FROM metrics WHERE day = ?'),
      apiMetrics: p(`SELECT samples, total_ms, uncharged FROM metrics WHERE day = ? AND channel = 'api'`),
    };
  }

  /**
   * One sample (`uncharged` when the decision was served without a charge), and the
   * day's API figures with it, which an API sample's own statement returns.
   */
  record(day: string, channel: Channel, ms: number, uncharged: boolean): MetricsRow {
    const row = this.s.sample.get(day, channel, Math.round(ms), uncharged ? 1 : 0) as MetricsColumns;
    return channel === 'api' ? metricsRow('api', row) : this.api(day);
  }

  private api(day: string): MetricsRow {
    return metricsRow('api', this.s.apiMetrics.get(day) as MetricsColumns | undefined);
  }

  async day(now: Date): Promise<MetricsRow[]> {
    const day = utcDay(now);
    const rows = (await this.tx.unlocked(() => this.s.metrics.all(day))) as (MetricsColumns & { channel: Channel })[];
    return CHANNELS.map((channel) =>
      metricsRow(
        channel,
        rows.find((r) => r.channel === channel),
      ),
    );
  }
}
