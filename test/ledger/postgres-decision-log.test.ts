import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPool, parsePostgresUrl } from '../../src/ledger/postgres/database.js';
import { MIGRATIONS, migrate } from '../../src/ledger/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/ledger/postgres/store.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';
import { LIMITS, NOW } from './helpers.js';
import { PgLedger } from './postgres-helpers.js';

// A decision log written before its entries held the same numbers in every mode, as
// SQLite's (sqlite-migrations.test.ts): a choice's `confidence` was the margin, a
// noul's and a score's the top probability. The upgrade makes every `confidence` the
// margin and keeps each probability it can know as `top_probability`.
describe.skipIf(!POSTGRES)(`PostgreSQL: a decision log from before every mode held the same confidence ${NEEDS_POSTGRES}`, () => {
  let ledger: PgLedger;
  let store: PostgresStore | undefined;
  beforeEach(() => {
    ledger = new PgLedger();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await ledger.dispose();
  });

  it('turns every confidence into the margin and keeps each probability it can know', async () => {
    const pool = createPool(parsePostgresUrl(ledger.url), 1);
    try {
      // Step 13 made the decisions table; later steps are the upgrade.
      expect(await migrate(pool, ledger.schema, MIGRATIONS.slice(0, 13))).toEqual({ from: 0, to: 13 });
    } finally {
      await pool.end();
    }
    const at = (minute: number) => new Date(NOW.getTime() + minute * 60_000).toISOString();
    await ledger.exec(`INSERT INTO passes (id, created_at, credits, funded_ever) VALUES ('pass_old', ?, 0, false)`, [at(0)]);
    await ledger.exec(
      `INSERT INTO keys (id, pass_id, fingerprint, hint, created_at) VALUES ('key_old', 'pass_old', decode(repeat('00', 32), 'hex'), 'h', ?)`,
      [at(0)],
    );
    const rows: Array<[string, string, number, string | null]> = [
      ['choice', 'PostgreSQL', 0.08, null],
      ['choice', 'A', 0.5, '["A","B"]'],
      ['choice', 'B', 0.4, '["A","B","C"]'],
      ['noul', 'yes', 0.54, null],
      ['noul', 'no', 1, null],
      ['score', 'low', 0.384, '["low","medium","high"]'],
      ['score', 'high', 0.3334, null],
    ];
    for (const [i, [mode, top, confidence, choices]] of rows.entries()) {
      await ledger.exec(
        `INSERT INTO decisions (pass_id, key_id, decided_at, door, mode, depth, credits, signal, top, confidence, question, context, choices, answer)
         VALUES ('pass_old', 'key_old', ?, 'api', ?, 'standard', 0, 'unclear', ?, ?, ?, ?, ?, ?)`,
        [at(i + 1), mode, top, confidence, choices && 'q', choices && 'c', choices, choices && '{}'],
      );
    }

    store = await openPostgresStore(ledger.url, LIMITS, { sweepIntervalMs: 0 });
    const logged = (await store.decisions.recent('pass_old', 20)).reverse();
    expect(logged.map((d) => [d.mode, d.top, d.topProbability, d.confidence])).toEqual([
      ['choice', 'PostgreSQL', null, 0.08],
      ['choice', 'A', 0.75, 0.5],
      ['choice', 'B', 0.6, 0.4],
      ['noul', 'yes', 0.54, 0.08],
      ['noul', 'no', 1, 1],
      ['score', 'low', 0.384, 0.076],
      ['score', 'high', 0.3334, 0.0001],
    ]);
  });
});
