import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSet } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, decideInPty, killAll, plain, tempFolder, type TempFolder } from '../cli-client/helpers.js';
import { startSimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt, runCli, runJson, startServe } from '../support/cli.js';
import { scaled } from '../support/time.js';

/** `decide eval` as a user meets it: its output, its files, its failures and its exit codes. */

const SET = [
  {
    id: 'carrier',
    mode: 'choice',
    question: 'Which carrier should we book for the order?',
    context:
      'We book the cheapest carrier that delivers within the deadline. Carrier Blue costs 40 dollars and takes 6 days. ' +
      'Carrier Red costs 55 dollars and takes 3 days. Carrier Green costs 70 dollars and takes 2 days. The customer needs the goods within 4 days.',
    options: ['Carrier Blue', 'Carrier Red', 'Carrier Green'],
    answer: 'Carrier Red',
    decisiveFact: 'The customer needs the goods within 4 days.',
  },
  {
    id: 'approval',
    mode: 'noul',
    question: 'Can the team lead approve this order alone?',
    context: 'Team leads approve orders up to 500 dollars. The order is for 10 chairs at 80 dollars each.',
    answer: false,
    decisiveFact: 'Team leads approve orders up to 500 dollars.',
  },
  {
    id: 'disk',
    mode: 'score',
    question: 'How urgent is the disk alert?',
    context: 'Disks under 50 percent full are low urgency, 50 to 85 percent medium and above 85 percent high. The disk is 93 percent full.',
    levels: ['low', 'medium', 'high'],
    answer: 'high',
    decisiveFact: 'The disk is 93 percent full.',
  },
];
const FAULTS: SimulatedFaults = { accuracy: 0.8, temperature: 1, positionBias: 0, sufficiencySeparation: 0.6 };
/** 3 items as written, 2 reversed, 3 without their decisive fact. */
const DECISIONS = 8;

describe('decide eval', () => {
  let sim: SystemOneFake;
  let tmp: TempFolder;
  let setFile: string;
  beforeAll(async () => {
    assertBuilt();
    sim = await startSimulatedModel(parseSet(SET.map((i) => JSON.stringify(i)).join('\n'), 'set'), FAULTS);
  });
  afterAll(() => sim.close());
  afterEach(async () => {
    await killAll();
    sim.respond();
    sim.requests.length = 0;
    tmp?.remove();
  });
  const engineEnv = () => ({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: 'simulated' });
  const writeSet = (lines: string[]) => {
    tmp = tempFolder();
    setFile = path.join(tmp.dir, 'set.jsonl');
    fs.writeFileSync(setFile, lines.join('\n') + '\n');
    return setFile;
  };
  const goodSet = () => writeSet(SET.map((item) => JSON.stringify(item)));

  it('prints the figures as a table for people, and --out writes report.json and a reliability diagram per mode', async () => {
    const file = goodSet();
    const out = path.join(tmp.dir, 'out');
    const run = await decide(['eval', '--set', file, '--out', out], { env: engineEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('systemone, model simulated');
    expect(run.stdout).toMatch(/3 items \(0 without their deciding\s+fact\), 8 decisions/);
    expect(run.stdout).toMatch(/^\s+n\s+accuracy\s+Brier\s+log loss\s+ECE$/m);
    expect(run.stdout).toMatch(/^overall\s+3\s/m);
    expect(run.stdout).toMatch(/^Position bias\s+flip rate 0\.0%/m);
    expect(run.stdout).toMatch(/^Failed\s+none$/m);
    // Progress goes to stderr when stdout is not a terminal.
    expect(run.stderr).toContain('decide: eval 100% (8 of 8 decisions)');

    const report = EvalReport.parse(JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.asked).toBe(DECISIONS);
    expect(fs.readdirSync(out).sort()).toEqual([
      'reliability-choice.svg',
      'reliability-noul.svg',
      'reliability-overall.svg',
      'reliability-score.svg',
      'report.json',
    ]);
    const svg = fs.readFileSync(path.join(out, 'reliability-overall.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('n = 3, accuracy');
    // One bar per non-empty bin, with its counts in a tooltip.
    const filled = report.overall.reliability.filter((bin) => bin.n > 0).length;
    expect(svg.match(/<title>/g)).toHaveLength(filled);
  });

  it('--json prints one object; --limit takes the first items', async () => {
    const file = goodSet();
    const report = EvalReport.parse(JSON.parse((await decide(['eval', '--set', file, '--json', '--limit', '1'], { env: engineEnv() })).stdout));
    expect(report.set).toMatchObject({ items: 1, sufficient: 1, insufficient: 0 });
    expect(report.asked).toBe(3);
    expect(report.modes.noul.n).toBe(0);
    expect(report.modes.noul.accuracy).toBeNull();
  });

  it.each([
    ['a line that is not JSON', ['{"id": "x"'], /line 2: not valid JSON/],
    ['a missing field', [JSON.stringify({ ...SET[1], id: 'x', question: undefined })], /line 2: question:/],
    ['an answer outside the options', [JSON.stringify({ ...SET[0], id: 'x', answer: 'Carrier Pink' })], /line 2: answer: must be one of the options/],
  ])('%s: exit 2 naming the line and the field, before any decision', async (_what, bad, message) => {
    const file = writeSet([JSON.stringify(SET[0]), ...bad]);
    const run = await decide(['eval', '--set', file], { env: engineEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain(file);
    expect(sim.requests).toHaveLength(0);
  });

  it('a set that cannot be read, and an --out that cannot be written, exit 2 before any decision', async () => {
    const missing = await decide(['eval', '--set', '/nonexistent/set.jsonl'], { env: engineEnv() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent\/set\.jsonl: cannot be read \(ENOENT\)/);
    const file = goodSet();
    fs.writeFileSync(path.join(tmp.dir, 'a-file'), '');
    const out = await decide(['eval', '--set', file, '--out', path.join(tmp.dir, 'a-file', 'out')], { env: engineEnv() });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--out: cannot write into .*a-file\/out \(ENOTDIR\)/);
    expect(sim.requests).toHaveLength(0);
  });

  it('engine failures are counted by code and the rest is measured; exit 0', async () => {
    const file = goodSet();
    sim.respond((body) => {
      const asked = JSON.stringify(body);
      if (asked.includes('disk alert')) return { status: 503 };
      return { garbage: asked.includes('chairs') && !asked.includes('up to 500') };
    });
    const run = await decide(['eval', '--set', file, '--json'], { env: engineEnv() });
    expect(run.code, run.stderr).toBe(0);
    const report = EvalReport.parse(JSON.parse(run.stdout));
    // The disk item in its three readings, and the approval item without its limit.
    expect(report.failed.byCode).toEqual({ engine_unavailable: 3, engine_bad_response: 1 });
    expect(report.failed.items).toContainEqual(expect.objectContaining({ id: 'disk', variant: 'reversed', code: 'engine_unavailable' }));
    expect(report.failed.items).toContainEqual(expect.objectContaining({ id: 'approval', variant: 'without-fact', code: 'engine_bad_response' }));
    expect(report.overall.n).toBe(2);
    expect(report.decisiveFact.n).toBe(1);
  });

  it('every item failing: the report still printed, and exit 5 naming the codes', async () => {
    const file = goodSet();
    sim.respond(() => ({ status: 503 }));
    const run = await decide(['eval', '--set', file, '--json'], { env: engineEnv() });
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout).failed.byCode).toEqual({ engine_unavailable: DECISIONS });
    expect(run.stderr).toContain(`every item failed (engine_unavailable ${DECISIONS}): nothing was measured`);
  });

  it('on a terminal: a progress bar with the decisions done, then the table', async () => {
    const file = goodSet();
    sim.respond(() => ({ delayMs: 150 }));
    const run = await decideInPty(['eval', '--set', file, '--concurrency', '1'], { env: engineEnv() });
    expect(run.code).toBe(0);
    const seen = plain(run.stdout);
    expect(seen).toMatch(/Evaluating [█░]{30} [1-7]\/8 decisions, about \d+ s left/);
    expect(seen).toMatch(/Evaluating [█░]{30} 8\/8 decisions/);
    expect(seen.slice(seen.lastIndexOf('8/8 decisions'))).toMatch(/overall\s+3/);
  });

  describe('--url: a running service, paid like any other use', () => {
    const startService = async () => {
      const db = path.join(tmp.dir, 'ledger.db');
      const serving = await startServe(['--db', db], engineEnv(), scaled(20_000));
      const { key } = await runJson(['key', 'create', '--db', db]);
      return { url: serving.url, key, db };
    };
    const usage = async (url: string, key: string) =>
      (await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;

    it('says what it will spend and wants --yes without a terminal; with it, spends exactly that', { timeout: scaled(60_000) }, async () => {
      const file = goodSet();
      const { url, key } = await startService();
      const refused = await decide(['eval', '--set', file, '--url', url], { env: { DECIDE_API_KEY: key } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`makes ${DECISIONS} decisions at ${url}: ${DECISIONS} from today's free allowance, then 0 credit(s)`);
      expect(refused.stderr).toContain('Add --yes');
      expect((await usage(url, key)).freeUsed).toBe(0);

      const run = await decide(['eval', '--set', file, '--url', url, '--yes', '--json'], { env: { DECIDE_API_KEY: key } });
      expect(run.code, run.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(run.stdout));
      expect(report.engine).toEqual({ name: `decide at ${url}`, model: 'simulated' });
      expect(report.overall.n).toBe(3);
      expect((await usage(url, key)).freeUsed).toBe(DECISIONS);
    });

    it('--depth stress: every decision a stress decision, priced at 5 credits and never from the free allowance', { timeout: scaled(60_000) }, async () => {
      const file = goodSet();
      const { url, db } = await startService();
      const { key, passId } = await runJson(['key', 'create', '--db', db]);
      await runJson(['pass', 'fund', '--pass', passId, '--credits', '45', '--db', db]);
      const run = await decide(['eval', '--set', file, '--url', url, '--yes', '--json', '--depth', 'stress'], { env: { DECIDE_API_KEY: key } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`makes ${DECISIONS} stress decisions at ${url}: ${DECISIONS * 5} credit(s) of the key's pass (5 each)`);
      const report = EvalReport.parse(JSON.parse(run.stdout));
      expect(report.depth).toBe('stress');
      expect(report.failed.count).toBe(0);
      expect(await usage(url, key)).toMatchObject({ freeUsed: 0, passCredits: 45 - DECISIONS * 5 });
    });

    it('a refused key stops it with exit 3; a pass that runs out stops it with exit 4', { timeout: scaled(60_000) }, async () => {
      const file = goodSet();
      const { url, key, db } = await startService();
      const other = await runJson(['key', 'create', '--db', db]);
      expect((await runCli(['revoke', '--yes', '--url', url], { DECIDE_API_KEY: other.key })).code).toBe(0);
      const revoked = await decide(['eval', '--set', file, '--url', url, '--yes'], { env: { DECIDE_API_KEY: other.key } });
      expect(revoked.code).toBe(3);
      expect(revoked.stderr).toMatch(/refused the key/);

      // Spend all but 3 of the free allowance: the evaluation's 8 decisions do not fit.
      for (let i = 0; i < 17; i++) {
        const res = await fetch(`${url}/v1/decisions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ mode: 'noul', question: SET[1].question, context: SET[1].context }),
        });
        expect(res.status).toBe(200);
      }
      const run = await decide(['eval', '--set', file, '--url', url, '--yes', '--concurrency', '1'], { env: { DECIDE_API_KEY: key } });
      expect(run.code).toBe(4);
      expect(run.stderr).toContain("3 from today's free allowance, then 5 credit(s) of the key's pass; it holds 0, so the run stops when they run out");
      expect(run.stderr).toMatch(/free_limit_reached/);
      expect((await usage(url, key)).freeUsed).toBe(20);
    });
  });
});
