import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { groupOf } from '../../src/eval/halves.js';
import { readSet } from '../../src/eval/item.js';
import { openStore } from '../../src/ledger/open.js';
import type { Calibration } from '../../src/ledger/store.js';
import { decide, killAll, tempFolder, type TempFolder } from '../cli-client/helpers.js';
import { startSimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt, ROOT } from '../support/cli.js';
import { writeSet } from '../support/sets.js';
import { scaled } from '../support/time.js';

/**
 * What `decide calibrate` refuses, and what it does without an engine: a set too
 * small, a target too small, readings that failed, and `--show` / `--reset`, which
 * name the engine and model from the configuration alone.
 */

const items = readSet(path.join(ROOT, 'eval', 'decisions.jsonl'));
const FAIR: SimulatedFaults = { accuracy: 0.7, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 };
const NOBODY = 'http://127.0.0.1:9';
const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };

describe('decide calibrate refuses what it cannot judge', () => {
  let sim: SystemOneFake | undefined;
  let tmp: TempFolder;
  let db: string;
  beforeAll(assertBuilt);
  beforeEach(() => {
    tmp = tempFolder();
    db = path.join(tmp.dir, 'ledger.db');
  });
  afterEach(async () => {
    await killAll();
    await sim?.close();
    sim = undefined;
    tmp.remove();
  });

  const seed = async (
    rows: Array<Pick<Calibration, 'engine' | 'model' | 'target' | 'temperature'> & Partial<Pick<Calibration, 'debias'>>>,
  ) => {
    const store = await openStore(db, LIMITS);
    for (const row of rows)
      await store.calibrations.save({
        debias: 'none',
        offsets: null,
        ...row,
        fitted: 50,
        heldOut: 50,
        eceBefore: 0.2,
        eceAfter: 0.1,
        fittedAt: '2026-11-01T00:00:00.000Z',
      });
    await store.close();
  };
  const show = async () => JSON.parse((await decide(['calibrate', '--show', '--db', db, '--json'])).stdout) as Calibration[];
  const calibrate = (env: Record<string, string>, flags: string[]) =>
    decide(['calibrate', '--db', db, '--concurrency', '8', ...flags], { env, timeoutMs: scaled(80_000) });

  it('refuses a set too small for any temperature before asking the engine, naming the sizes', async () => {
    sim = await startSimulatedModel(items, FAIR);
    const file = writeSet(tmp.dir, 'tiny.jsonl', items.slice(0, 12));
    const run = await calibrate({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'm' }, ['--set', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /tiny\.jsonl is too small to fit any temperature: 12 items give choice \d+ \/ \d+, .*sufficiency \d+ \/ \d+ readings \(to fit \/ held out\); a target needs 20 in each half\n$/,
    );
    expect(run.stdout).toBe('');
    expect(sim.requests).toHaveLength(0);
    expect(await show()).toEqual([]);

    const one = writeSet(tmp.dir, 'one.jsonl', items.slice(0, 1));
    const single = await calibrate({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'm' }, ['--set', one]);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('one.jsonl is too small to fit any temperature: 1 item gives ');
  });

  it('does not fit a target too small, and leaves its earlier temperature as it was', { timeout: scaled(100_000) }, async () => {
    // Every item but the score items of all groups except three.
    const scoreGroups = [...new Set(items.filter((i) => i.mode === 'score').map(groupOf))].slice(0, 3);
    const set = items.filter((i) => i.mode !== 'score' || scoreGroups.includes(groupOf(i)));
    const file = writeSet(tmp.dir, 'few-scores.jsonl', set);
    await seed([{ engine: 'systemone', model: 'm', target: 'score', temperature: 2.5 }]);
    sim = await startSimulatedModel(set, FAIR);
    const run = await calibrate({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'm' }, [
      '--set',
      file,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const score = JSON.parse(run.stdout).fits.find((f: { target: string }) => f.target === 'score');
    expect(score).toMatchObject({ temperature: null, kept: false, stored: null, logLossInterval: null });
    expect(score.reason).toMatch(
      /^too few readings \(\d+ to fit, \d+ held out; 20 of each needed\): not fitted, the ledger's temperature left as it was$/,
    );
    const shown = await show();
    expect(shown.find((c) => c.target === 'score')).toMatchObject({ temperature: 2.5, fittedAt: '2026-11-01T00:00:00.000Z' });
    expect(shown.map((c) => c.target).sort()).toEqual(['choice', 'noul', 'score', 'sufficiency']);
  });

  it('exits 5 when every reading failed, and keeps nothing', { timeout: scaled(60_000) }, async () => {
    const run = await calibrate({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: NOBODY, DECIDE_MODEL: 'm' }, ['--limit', '80']);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/decide: every reading failed \(\w+ \d+\): nothing to fit\n$/);
    expect(await show()).toEqual([]);
  });

  it('exits 5 when too few readings are left to fit anything, naming what failed and what was left', {
    timeout: scaled(60_000),
  }, async () => {
    // The model knows a few items: the engine's answer to every other one is unusable.
    sim = await startSimulatedModel(items.slice(0, 30), FAIR);
    const run = await calibrate({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'm' }, []);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /decide: \d+ of \d+ readings failed \(\w+ \d+\): too few left to fit any temperature \(choice \d+ \/ \d+, noul \d+ \/ \d+, score \d+ \/ \d+, sufficiency \d+ \/ \d+; 20 in each half needed\)\n$/,
    );
    expect(await show()).toEqual([]);
  });
});

describe('decide calibrate --show and --reset', () => {
  let tmp: TempFolder;
  let db: string;
  beforeEach(() => {
    tmp = tempFolder();
    db = path.join(tmp.dir, 'ledger.db');
  });
  afterEach(() => tmp.remove());

  const seed = async (engine: string, model: string) => {
    const store = await openStore(db, LIMITS);
    for (const target of ['choice', 'sufficiency'] as const) {
      await store.calibrations.save({
        engine,
        model,
        debias: engine === 'local' ? 'reverse' : 'none',
        target,
        temperature: 2,
        offsets: null,
        fitted: 50,
        heldOut: 50,
        eceBefore: 0.2,
        eceAfter: 0.1,
        fittedAt: '2026-11-01T00:00:00.000Z',
      });
    }
    await store.close();
  };
  const run = async (flags: string[], env: Record<string, string> = {}) => {
    const result = await decide(['calibrate', '--db', db, '--json', ...flags], { env });
    expect(result.code, result.stderr).toBe(0);
    // No engine started, no model loaded or fetched: nothing to say on stderr.
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout);
  };

  it('name the engine and model from the configuration alone: a model file that does not exist, no model fetched, a provider nobody serves', async () => {
    await seed('local', 'my-model');
    // The default model is keyed by its checksum's start (its content is pinned by it).
    await seed('local', 'qwen2.5-1.5b-instruct-q4_k_m@6a1a2eb6d15622bf');
    await seed('openai', 'gpt-x');
    const missing = path.join(tmp.dir, 'nowhere', 'my-model.gguf');

    expect(await run(['--show', '--model', missing])).toHaveLength(6);
    expect(await run(['--reset', '--model', missing])).toEqual({ engine: 'local', model: 'my-model', removed: 2 });
    // No model configured: the default model's name, and its download never begins (the test's mirror is unreachable anyway).
    expect(await run(['--reset'])).toEqual({ engine: 'local', model: 'qwen2.5-1.5b-instruct-q4_k_m@6a1a2eb6d15622bf', removed: 2 });
    const openai = { DECIDE_ENGINE: 'openai', OPENAI_BASE_URL: NOBODY, DECIDE_MODEL: 'gpt-x' };
    expect(await run(['--reset'], openai)).toEqual({ engine: 'openai', model: 'gpt-x', removed: 2 });
    expect(await run(['--show', '--model', missing])).toEqual([]);
  });

  it('--reset says in words how many temperatures it removed: 2, then 0', async () => {
    await seed('openai', 'gpt-x');
    const env = { DECIDE_ENGINE: 'openai', OPENAI_BASE_URL: NOBODY, DECIDE_MODEL: 'gpt-x' };
    const reset = () => decide(['calibrate', '--reset', '--db', db], { env });
    expect((await reset()).stdout).toBe(`Removed 2 temperatures of openai gpt-x from ${db}.\n`);
    expect((await reset()).stdout).toBe(`Removed 0 temperatures of openai gpt-x from ${db}.\n`);
  });

  it('--reset exits 78 naming the variable when the configuration names no model for a provider', async () => {
    const result = await decide(['calibrate', '--reset', '--db', db], { env: { DECIDE_ENGINE: 'openai', OPENAI_BASE_URL: NOBODY } });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/DECIDE_MODEL is required for the openai engine/);
  });
});
