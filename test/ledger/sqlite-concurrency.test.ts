import { concurrencySuite } from './concurrency-suite.js';
import { sqliteHarness } from './sqlite-harness.js';

// Shared with PostgreSQL (postgres-concurrency.test.ts): one file, several connections and processes.
concurrencySuite(sqliteHarness());
