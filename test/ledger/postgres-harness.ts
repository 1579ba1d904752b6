import { openPostgresStore, type PostgresStoreOptions } from '../../src/ledger/postgres/store.js';
import { LIMITS } from './helpers.js';
import { PgLedger } from './postgres-helpers.js';
import type { LedgerHarness } from './store-suite.js';

/**
 * The PostgreSQL ledger for the shared suites: a schema of its own per test, dropped
 * after. Stores open without the periodic sweep (expiry is tested on purpose, in
 * postgres.test.ts), unless `options` says otherwise.
 */
export function postgresHarness(options: PostgresStoreOptions = {}): LedgerHarness & {
  ledger(): PgLedger;
  location(): string;
} {
  let ledger: PgLedger;
  return {
    name: 'PostgreSQL',
    ledger: () => ledger,
    location: () => ledger.url,
    async create() {
      ledger = new PgLedger();
    },
    destroy: () => ledger.dispose(),
    open: (limits = {}) => openPostgresStore(ledger.url, { ...LIMITS, ...limits }, { sweepIntervalMs: 0, ...options }),
    rows: (sql, params) => ledger.rows(sql, params),
    exec: (sql, params) => ledger.exec(sql, params),
    audit: () => ledger.audit(),
    chargeStates: () => ledger.chargeStates(),
    outliveLeases: () => ledger.outliveLeases(),
    everything: () => ledger.everything(),
  };
}
