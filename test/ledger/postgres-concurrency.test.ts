import { describe } from 'vitest';
import { concurrencySuite } from './concurrency-suite.js';
import { postgresHarness } from './postgres-harness.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

// Shared with SQLite (sqlite-concurrency.test.ts): one schema, several pools and processes.
describe.skipIf(!POSTGRES)(`the ledger under concurrency ${NEEDS_POSTGRES}`, () => concurrencySuite(postgresHarness()));
