import { inject } from 'vitest';

/**
 * Whether the tests that need PostgreSQL run. Global setup (global-setup.ts) tries
 * the server once a run; when it cannot be reached those tests skip, global setup
 * saying so in one line, unless DECIDE_REQUIRE_POSTGRES=1 (CI sets it): then every
 * file that needs it fails, naming the URL.
 */
const unreachable = inject('postgresUnreachable');
if (unreachable !== null && process.env.DECIDE_REQUIRE_POSTGRES === '1') {
  throw new Error(`${unreachable} and DECIDE_REQUIRE_POSTGRES=1: start it, or set DECIDE_TEST_PG_URL to one`);
}

export const POSTGRES = unreachable === null;

/** Said in the title of every test that needs it, so a skipped one says what it needs. */
export const NEEDS_POSTGRES = '(needs PostgreSQL: DECIDE_TEST_PG_URL)';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Null when the tests' PostgreSQL answered at the start of the run, else why not. */
    postgresUnreachable: string | null;
  }
}
