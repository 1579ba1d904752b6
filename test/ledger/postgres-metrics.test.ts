import { afterEach, describe, expect, it } from 'vitest';
import { createPool, parsePostgresUrl } from '../../src/ledger/postgres/database.js';
import { MIGRATIONS, migrate } from '../../src/ledger/postgres/migrations.js';
import { openPostgresStore } from '../../src/ledger/postgres/store.js';
import type { MetricsRow } from '../../src/ledger/metrics.js';
import type { Store } from '../../src/ledger/store.js';
import { DAY, IP, LIMITS, newCaller, NOW } from './helpers.js';
import { PgLedger } from './postgres-helpers.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * A day's metrics on PostgreSQL are kept in several rows per channel, one per
 * connection's shard, so that concurrent commits do not queue on one row's lock; what
 * a reader sees is their sum, exactly as one row would have held it.
 */
describe.skipIf(!POSTGRES)(`PostgreSQL: the day’s metrics in several rows ${NEEDS_POSTGRES}`, () => {
  let ledger: PgLedger;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    await ledger.dispose();
  });

  it('keeps the figures a database had before, and adds up what commits on many connections write', async () => {
    ledger = new PgLedger();
    const pool = createPool(parsePostgresUrl(ledger.url), 1);
    try {
      await migrate(pool, ledger.schema, MIGRATIONS.slice(0, 7));
    } finally {
      await pool.end();
    }
    await ledger.exec(`INSERT INTO metrics (day, channel, samples, total_ms, uncharged) VALUES (?, 'api', 3, 30, 1)`, [DAY]);

    store = await openPostgresStore(ledger.url, { ...LIMITS, freePerKey: 100 }, { sweepIntervalMs: 0, poolSize: 8 });
    const api = async () => (await store!.metrics.day(NOW)).find((m) => m.channel === 'api');
    expect(await api()).toEqual({ channel: 'api', samples: 3, totalMs: 30, uncharged: 1 });

    const caller = await newCaller(store);
    const seen: MetricsRow[] = [];
    const decisions = Array.from({ length: 24 }, async (_, i) => {
      const reserved = await store!.charges.reserve({ caller, depth: 'standard', ip: IP }, NOW);
      if (!reserved.ok) throw new Error(reserved.code);
      const sample = { reservedAt: NOW, channel: 'api' as const, ms: 10 + i };
      await store!.charges.commit(reserved.reservation.id, NOW, {
        sample,
        answer: (_outcome, row) => {
          seen.push(row);
          return '{}';
        },
      });
    });
    await Promise.all(decisions);

    // 10 + 11 + … + 33 = 516 ms over the 24 new samples.
    expect(await api()).toEqual({ channel: 'api', samples: 27, totalMs: 30 + 516, uncharged: 1 });
    // Each answer counts the figures before it and its own sample; later commits are not in it.
    expect(seen).toHaveLength(24);
    for (const row of seen) {
      expect(row.samples).toBeGreaterThanOrEqual(4);
      expect(row.samples).toBeLessThanOrEqual(27);
    }
  });
});
