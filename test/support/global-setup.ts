import type { TestProject } from 'vitest/node';
import { postgresUnreachable } from './postgres-server.js';
import { ensureTinyModel } from './tiny-model.js';

/**
 * Before any test file: the tiny model the local-engine tests load (tiny-model.ts), and
 * one try of the tests' PostgreSQL, whose outcome the tests that need it read
 * (postgres.ts). Unreachable, they skip, and this line says so once for the whole run.
 */
export default async function setup(project: TestProject): Promise<void> {
  ensureTinyModel();
  const unreachable = await postgresUnreachable();
  project.provide('postgresUnreachable', unreachable);
  if (unreachable !== null && process.env.DECIDE_REQUIRE_POSTGRES !== '1') {
    process.stderr.write(`${unreachable}: its tests skip; set DECIDE_TEST_PG_URL to a server they may create schemas in\n`);
  }
}
