import type { Database, Statement } from 'better-sqlite3';
import { CHANNELS, metricsRow, type MetricsColumns } from '../rules.js';
import type { Channel, MetricsRow } from '../store.js';

/** The day's processing-time samples per channel: one row per day and channel, added to. */
export class SqliteMetrics {
  private readonly s: Record<string, Statement>;

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      sample: p(`INSERT INTO metrics (day, channel, samples, total_ms, uncharged) VALUES (?, ?, 1, ?, ?)
                 ON CONFLICT (day, channel) DO UPDATE SET samples = samples + 1, total_ms = total_ms + excluded.total_ms,
                   uncharged = uncharged + excluded.uncharged`),
      metrics: p('SELECT channel, samples, total_ms, uncharged FROM metrics WHERE day = ?'),
      apiMetrics: p(`SELECT samples, total_ms, uncharged FROM metrics WHERE day = ? AND channel = 'api'`),
    };
  }

  /** One sample; `uncharged` when the decision was served without a charge. */
  record(day: string, channel: Channel, ms: number, uncharged: boolean): void {
    this.s.sample.run(day, channel, Math.round(ms), uncharged ? 1 : 0);
  }

  api(day: string): MetricsRow {
    return metricsRow('api', this.s.apiMetrics.get(day) as MetricsColumns | undefined);
  }

  /** Both channels, always in the order api, web; a channel without samples has zeros. */
  day(day: string): MetricsRow[] {
    const rows = this.s.metrics.all(day) as (MetricsColumns & { channel: Channel })[];
    return CHANNELS.map((channel) => metricsRow(channel, rows.find((r) => r.channel === channel)));
  }
}
