import { concurrencySuite } from './concurrency-suite.js';
import { postgresHarness } from './postgres-harness.js';

// Shared with SQLite (sqlite-concurrency.test.ts): one schema, several pools and processes.
concurrencySuite(postgresHarness());
