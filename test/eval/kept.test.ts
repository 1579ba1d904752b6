import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readSet } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { openStore } from '../../src/ledger/open.js';
import type { Evaluation } from '../../src/ledger/store.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { startSimulatedModel } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { PgLedger } from '../ledger/postgres-helpers.js';
import { assertBuilt, ROOT, runJson, startServe } from '../support/cli.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';
import { scaled } from '../support/time.js';

/**
 * `decide eval` against a ledger keeps a summary of its figures there, keyed as
 * `decide calibrate` keys its fits (engine, model, debiasing), one row each, replaced
 * by the next run; `decide serve` on that ledger then says the model was measured.
 */

const SHIPPED = path.join(ROOT, 'eval', 'decisions.jsonl');
const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };
const KEY = { engine: 'systemone', model: 'simulated', debias: 'none' } as const;

const kept = async (db: string): Promise<Evaluation[]> => {
  const store = await openStore(db, LIMITS, { create: false });
  try {
    return await store.evaluations.list();
  } finally {
    await store.close();
  }
};

/** The summary a report's figures make, as eval keeps it. */
const summaryOf = (report: EvalReport): Omit<Evaluation, 'evaluatedAt'> => {
  const estimate = (name: 'accuracy' | 'logLoss' | 'ece') => ({
    value: report.overall[name],
    low: report.intervals[`overall.${name}`].low,
    high: report.intervals[`overall.${name}`].high,
  });
  return {
    ...KEY,
    set: 'eval/decisions.jsonl',
    half: report.set.half ?? null,
    items: report.set.items,
    measured: report.overall.n,
    calibrated: false,
    accuracy: estimate('accuracy') as Evaluation['accuracy'],
    logLoss: estimate('logLoss') as Evaluation['logLoss'],
    ece: estimate('ece') as Evaluation['ece'],
  };
};

describe('decide eval keeps its figures in the ledger', () => {
  let sim: SystemOneFake;
  let dir: string;
  const ledgers: PgLedger[] = [];
  const env = () => ({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'simulated' });
  const evaluate = async (flags: string[]) => {
    const run = await decide(['eval', '--json', '--concurrency', '8', '--set', SHIPPED, ...flags], {
      env: env(),
      timeoutMs: scaled(60_000),
    });
    expect(run.code, run.stderr).toBe(0);
    return { report: EvalReport.parse(JSON.parse(run.stdout)), stderr: run.stderr };
  };

  beforeAll(async () => {
    assertBuilt();
    sim = await startSimulatedModel(readSet(SHIPPED), { accuracy: 0.7, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-eval-kept-'));
  });
  afterEach(async () => {
    await killAll();
    sim.respond();
    fs.rmSync(dir, { recursive: true, force: true });
    for (const ledger of ledgers.splice(0)) await ledger.dispose();
  });

  it('without a ledger file: says so in one line, makes none, and the run is as before', async () => {
    const db = path.join(dir, 'ledger.db');
    const { report, stderr } = await evaluate(['--limit', '6', '--db', db]);
    expect(report.set.items).toBe(6);
    expect(stderr).toContain(
      `decide: no ledger at ${db}: no scalings applied and these figures not kept (point --db at decide serve's ledger to keep them)\n`,
    );
    expect(stderr).not.toContain('kept these figures');
    expect(fs.existsSync(db)).toBe(false);
    // The default ledger (./decide.db, run here from the repository) is looked for the same way.
    expect((await evaluate(['--limit', '6'])).stderr).toContain(`decide: no ledger at ${path.join(ROOT, 'decide.db')}: `);
  });

  it('keeps one summary for this engine, model and debiasing, replaced by the next run; serve then says the model was measured', {
    timeout: scaled(120_000),
  }, async () => {
    const db = path.join(dir, 'ledger.db');
    await runJson(['key', 'create', '--create', '--db', db]);
    const before = new Date().toISOString();
    const first = await evaluate(['--limit', '12', '--db', db]);
    expect(first.stderr).toContain(
      `decide: kept these figures in ${db} for systemone simulated, debias none: decide serve says them at start\n`,
    );
    const [row, ...others] = await kept(db);
    expect(others).toEqual([]);
    expect(row).toEqual({ ...summaryOf(first.report), evaluatedAt: expect.any(String) });
    expect(row.items).toBe(12);
    expect(row.accuracy!.low).toBeLessThanOrEqual(row.accuracy!.value);
    expect(row.evaluatedAt >= before).toBe(true);

    // A re-run replaces it: still one row, now the figures of this run.
    const second = await evaluate(['--half', 'odd', '--limit', '8', '--db', db]);
    const after = await kept(db);
    expect(after).toEqual([{ ...summaryOf(second.report), half: 'odd', items: 8, evaluatedAt: expect.any(String) }]);
    expect(after[0].evaluatedAt >= row.evaluatedAt).toBe(true);

    // Every item failing measures nothing: the last summary stays.
    sim.respond(() => ({ status: 503 }));
    const failed = await decide(['eval', '--json', '--set', SHIPPED, '--limit', '4', '--db', db], { env: env() });
    expect(failed.code).toBe(5);
    expect(await kept(db)).toEqual(after);
    sim.respond();

    const server = await startServe(['--db', db], env(), scaled(20_000));
    const line = await server.waitForStderr(/^decide: engine /);
    const accuracy = (after[0].accuracy!.value * 100).toFixed(1);
    expect(line).toContain(
      `(model simulated, debias none, calibration none) at ${sim.url}, measured by decide eval on ${after[0].evaluatedAt.slice(0, 10)} ` +
        `(accuracy ${accuracy} % [${(after[0].accuracy!.low! * 100).toFixed(1)}, ${(after[0].accuracy!.high! * 100).toFixed(1)}], 8 items of the odd half, debias none), database `,
    );
    await server.stop();
  });

  it.skipIf(!POSTGRES)(`on PostgreSQL too: kept, then replaced ${NEEDS_POSTGRES}`, { timeout: scaled(120_000) }, async () => {
    const ledger = new PgLedger();
    ledgers.push(ledger);
    const first = await evaluate(['--limit', '6', '--db', ledger.url]);
    expect(first.stderr).toContain('decide: kept these figures in ');
    expect(await kept(ledger.url)).toEqual([{ ...summaryOf(first.report), evaluatedAt: expect.any(String) }]);
    const second = await evaluate(['--limit', '9', '--db', ledger.url]);
    expect(await kept(ledger.url)).toEqual([{ ...summaryOf(second.report), items: 9, evaluatedAt: expect.any(String) }]);
  });
});
