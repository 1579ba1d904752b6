import { defineConfig } from 'vitest/config';
import { scaled } from './test/support/time.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Writes the tiny model the local-engine tests run on, once (test/support/tiny-model.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // Deadlines that only turn a hang into a failure: DECIDE_TEST_TIME_SCALE stretches
    // them for slower machines (test/support/time.ts).
    testTimeout: scaled(30_000),
    hookTimeout: scaled(30_000),
    // Suites start real servers and child processes; two cores on CI machines.
    maxWorkers: 2,
  },
});
