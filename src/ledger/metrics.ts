import type { Channel } from '../contract/caller.js';

export interface MetricsRow {
  channel: Channel;
  samples: number;
  totalMs: number;
  /** Of the samples, decisions served without a charge. */
  uncharged: number;
}

/** Processing times per UTC day and channel; a sample is written by the commit of its decision (Charges.commit). */
export interface DailyMetrics {
  /** The UTC day of `now`: both channels, always in the order api, web; a channel without samples has zeros. */
  day(now: Date): Promise<MetricsRow[]>;
}
