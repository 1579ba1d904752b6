import type { Metrics, MetricsGroup } from '../contract/index.js';
import type { MetricsRow } from '../ledger/store.js';

function group(samples: number, totalMs: number, uncharged: number): MetricsGroup {
  return { samples, meanMs: samples === 0 ? null : Math.round(totalMs / samples), uncharged };
}

/** Today's metrics record; `overall` is the sum of the channels. */
export function metricsRecord(day: string, rows: MetricsRow[]): Metrics {
  const of = (channel: 'api' | 'web') => rows.find((r) => r.channel === channel) ?? { samples: 0, totalMs: 0, uncharged: 0 };
  const api = of('api');
  const web = of('web');
  return {
    day,
    overall: group(api.samples + web.samples, api.totalMs + web.totalMs, api.uncharged + web.uncharged),
    web: group(web.samples, web.totalMs, web.uncharged),
    api: group(api.samples, api.totalMs, api.uncharged),
  };
}
