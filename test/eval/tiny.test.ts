import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EvalReport } from '../../src/eval/report.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { assertBuilt } from '../support/cli.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../support/local-runtime.js';
import { TINY_MODEL, TINY_MODEL_NAME } from '../support/service.js';
import { scaled } from '../support/time.js';

/**
 * The whole command end to end on the tiny model, in process, as `decide
 * serve --model` would run it. Its weights are random: the figures sit near chance,
 * and only their plumbing is checked.
 */
describe.skipIf(!LOCAL_RUNTIME)(`decide eval on the tiny local model ${NEEDS_LOCAL_RUNTIME}`, () => {
  beforeAll(assertBuilt);
  afterEach(killAll);

  it('measures the first items of the shipped set with the local engine, on the threads --threads gives', {
    timeout: scaled(60_000),
  }, async () => {
    const run = await decide(['eval', '--model', TINY_MODEL, '--threads', '1', '--limit', '24', '--json'], { timeoutMs: scaled(55_000) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/local engine: 1 thread on \w+, context \d+ tokens, one decision at a time/);
    const report = EvalReport.parse(JSON.parse(run.stdout));
    expect(report.engine).toEqual({ name: 'local', model: TINY_MODEL_NAME, debias: 'reverse' });
    expect(report.failed.count).toBe(0);
    expect(report.set.items).toBe(24);
    expect(report.overall.n).toBe(report.set.sufficient);
    for (const figure of [report.overall.accuracy, report.overall.ece, report.positionBias.complete.flipRate, report.sufficiency.auroc]) {
      expect(figure).toBeGreaterThanOrEqual(0);
      expect(figure).toBeLessThanOrEqual(1);
    }
    expect(report.overall.brier).toBeGreaterThan(0);
  });
});
