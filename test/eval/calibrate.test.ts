import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fitTemperature, isHeldOut } from '../../src/eval/calibrate.js';
import { readSet } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { startSimulatedModel } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt, ROOT, startServe } from '../support/cli.js';
import { scaled } from '../support/time.js';

describe('fitting a temperature', () => {
  it('finds the temperature at which the stated probability is the share right', () => {
    // Stated 0.9, right 7 times in 10: the fit states 0.7, i.e. 0.9^b / (0.9^b + 0.1^b) = 0.7.
    const scored = [...Array(10)].map((_, i) => ({ p: [0.9, 0.1], answer: i < 7 ? 0 : 1 }));
    const expected = Math.log(9) / Math.log(7 / 3);
    expect(fitTemperature(scored)).toBeCloseTo(expected, 2);
    // An underconfident engine is sharpened: T below 1.
    const timid = [...Array(10)].map((_, i) => ({ p: [0.6, 0.4], answer: i < 9 ? 0 : 1 }));
    expect(fitTemperature(timid)).toBeLessThan(1);
    expect(fitTemperature([])).toBe(1);
  });

  it('splits a set into two fixed halves by id', () => {
    const ids = readSet(path.join(ROOT, 'eval', 'decisions.jsonl')).map((item) => item.id);
    const held = ids.filter(isHeldOut).length;
    expect(held / ids.length).toBeGreaterThan(0.4);
    expect(held / ids.length).toBeLessThan(0.6);
    expect(ids.filter(isHeldOut)).toEqual(ids.filter(isHeldOut));
  });
});

/** `decide calibrate` on an overconfident simulated model, as an operator runs it, then serve and eval with its temperatures. */
describe('decide calibrate', () => {
  const items = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));
  let sim: SystemOneFake | undefined;
  let dir: string;
  beforeAll(assertBuilt);
  afterEach(async () => {
    await killAll();
    await sim?.close();
    sim = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fits on half the set, halves the held-out ECE of every mode, and serve and eval apply it until --reset', { timeout: scaled(100_000) }, async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-calibrate-'));
    const db = path.join(dir, 'ledger.db');
    sim = await startSimulatedModel(items, { accuracy: 0.7, temperature: 0.3, positionBias: 0, sufficiencySeparation: 0.6 });
    const env = { DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'overconfident' };

    const fitted = await decide(['calibrate', '--db', db, '--json', '--concurrency', '8'], { env, timeoutMs: scaled(80_000) });
    expect(fitted.code, fitted.stderr).toBe(0);
    const result = JSON.parse(fitted.stdout);
    expect(result).toMatchObject({ engine: 'systemone', model: 'overconfident', debias: 'none', failed: 0 });
    expect(result.fits.map((f: { target: string }) => f.target)).toEqual(['choice', 'noul', 'score', 'sufficiency']);
    for (const fit of result.fits.filter((f: { target: string }) => f.target !== 'sufficiency')) {
      // The model sharpened its answers by 1/0.3: the fit softens them by about as much.
      expect(fit.temperature, fit.target).toBeGreaterThan(2);
      expect(fit.eceAfter, fit.target).toBeLessThanOrEqual(fit.eceBefore / 2);
      expect(fit.fitted + fit.heldOut).toBeGreaterThan(60);
    }

    const shown = JSON.parse((await decide(['calibrate', '--show', '--db', db, '--json'], { env })).stdout);
    expect(shown).toHaveLength(4);

    const raw = EvalReport.parse(JSON.parse((await decide(['eval', '--json'], { env, timeoutMs: scaled(80_000) })).stdout));
    const calibrated = EvalReport.parse(JSON.parse((await decide(['eval', '--json', '--db', db], { env, timeoutMs: scaled(80_000) })).stdout));
    expect(calibrated.engine.temperatures).toMatchObject({ choice: expect.any(Number), sufficiency: expect.any(Number) });
    expect(calibrated.overall.accuracy).toBe(raw.overall.accuracy);
    expect(calibrated.overall.ece!).toBeLessThan(raw.overall.ece! / 2);

    const serving = await startServe(['--db', db], env, scaled(20_000));
    expect(await serving.waitForStderr(/^decide: engine /)).toMatch(/calibration choice \d+\.\d\d, noul \d+\.\d\d, score \d+\.\d\d, sufficiency \d+\.\d\d/);
    await serving.stop();

    const reset = await decide(['calibrate', '--reset', '--db', db, '--json'], { env });
    expect(JSON.parse(reset.stdout)).toEqual({ engine: 'systemone', model: 'overconfident', removed: 4 });
    expect(JSON.parse((await decide(['calibrate', '--show', '--db', db, '--json'], { env })).stdout)).toEqual([]);
  });
});
