import { describe, expect, it } from 'vitest';
import { runChaos, type ChaosResult } from '../../bench/chaos/driver.js';
import { chaosTable, failedChecks } from '../../bench/chaos/report.js';
import { assertBuilt } from '../support/cli.js';
import { scaled } from '../support/time.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * `npm run bench:chaos` at CI size: the same driver (bench/chaos/driver.js), the CLI as
 * users run it (build first), a misbehaving engine, kill -9 and restart of a server,
 * and on PostgreSQL two servers and dropped connections. Nothing may be lost: every
 * request answered or refused cleanly, and the ledger, /v1/usage and /v1/metrics
 * exactly what the answers imply.
 *
 * The size, 10 000 decisions from 200 clients, takes 18–25 s on SQLite on a
 * 2-core machine, but 45–62 s on PostgreSQL (two servers, the database and the load
 * sharing the two cores), so PostgreSQL runs 6 000 here (25–40 s), still from 200
 * clients with every fault; `npm run bench:chaos` runs 10 000 on both.
 * BENCH_CHAOS_DECISIONS / BENCH_CHAOS_CLIENTS set both sizes.
 */
const size = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const SQLITE_DECISIONS = size('BENCH_CHAOS_DECISIONS', 10_000);
const POSTGRES_DECISIONS = size('BENCH_CHAOS_DECISIONS', 6_000);
const CLIENTS = size('BENCH_CHAOS_CLIENTS', 200);

function judge(result: ChaosResult) {
  const failed = failedChecks([result]);
  process.stderr.write(`\n${chaosTable([result])}\n${failed ? failed + '\n' : ''}`);
  expect(
    result.checks.filter((c) => !c.ok).map((c) => c.name),
    failed,
  ).toEqual([]);
  expect(result.losses).toBe(0);
  expect(result.figures.unanswered).toBe(0);
  // The faults did happen: something for the run to survive.
  const injected = result.figures.engine.injected;
  for (const kind of ['5xx', '429', 'garbage', 'reset']) expect(injected[kind], kind).toBeGreaterThan(0);
  expect(result.figures.faults.kills).toBe(1);
  expect(result.figures.served).toBeGreaterThan(result.figures.decisions / 3);
}

describe('chaos at CI size: nothing is lost under load and faults', () => {
  it(`SQLite, one server: ${SQLITE_DECISIONS} decisions from ${CLIENTS} clients`, { timeout: scaled(110_000) }, async () => {
    assertBuilt();
    judge(await runChaos({ db: 'sqlite', decisions: SQLITE_DECISIONS, clients: CLIENTS }));
  });

  it.skipIf(!POSTGRES)(
    `PostgreSQL, two servers, connections dropped ${NEEDS_POSTGRES}: ${POSTGRES_DECISIONS} decisions from ${CLIENTS} clients`,
    { timeout: scaled(110_000) },
    async () => {
      assertBuilt();
      const result = await runChaos({ db: 'postgres', decisions: POSTGRES_DECISIONS, clients: CLIENTS });
      judge(result);
      expect(result.figures.faults.terminations).toBeGreaterThan(0);
      expect(result.figures.faults.backendsDropped).toBeGreaterThan(0);
    },
  );
});
