import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSet } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, decideInPty, killAll, plain, tempFolder, type TempFolder } from '../cli-client/helpers.js';
import { startSimulatedModel, type SimulatedFaults } from '../fakes/simulated-model.js';
import { choiceAnswer, noulAnswer, scoreAnswer, type SystemOneFake } from '../fakes/systemone-fake.js';
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
/**
 * 3 items as written; the choice and score items each in 3 more orders (reversed and
 * two drawn at random), the yes/no item with No first (only an engine in this process
 * can be asked that way); and all 3 without their decisive fact.
 */
const DECISIONS = 13;
/** Through a running service: no No-first reading. */
const REMOTE_DECISIONS = 12;
/** At stress depth: as written and without the fact only. */
const STRESS_DECISIONS = 6;

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
    expect(run.stdout).toMatch(/3 items \(0 without their deciding\s+fact\), 13\s+decisions/);
    expect(run.stdout).toMatch(/^\s+n\s+accuracy\s+Brier\s+log loss\s+ECE$/m);
    expect(run.stdout).toMatch(/^overall\s+3\s/m);
    expect(run.stdout).toMatch(/^Order\s+another order \(4 asked\) changed the top answer of\s+0\.0% \[0–0\] of\s+3 complete items/m);
    // The flips by mode: a choice (shown sorted), levels and yes/no (the pull of a place) are told apart.
    expect(run.stdout).toMatch(/complete items by mode:\s+choice\s+0\.0%\s+\[0–0\],\s+noul\s+0\.0%\s+\[0–0\],\s+score\s+0\.0%/);
    expect(run.stdout).toMatch(/^Failed\s+none$/m);
    // Beside accuracy, per mode, the best rule that answers without reading, and chance.
    expect(run.stdout).toMatch(/^Shortcuts\s+\w+:\s+best rule [\w-]+ \d+\.\d%, chance \d+\.\d%$/m);
    const report0 = EvalReport.parse(JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')));
    for (const [mode, shortcut] of Object.entries(report0.shortcuts)) {
      if (shortcut)
        expect(run.stdout, mode).toContain(
          `${`${mode}:`.padEnd(8)}best rule ${shortcut.best.rule} ${(shortcut.best.accuracy * 100).toFixed(1)}%, chance ${(shortcut.chance * 100).toFixed(1)}%`,
        );
    }
    // Progress goes to stderr when stdout is not a terminal.
    expect(run.stderr).toContain(`decide: eval 100% (${DECISIONS} of ${DECISIONS} decisions)`);

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

  it('--json prints one object; --limit takes a sample stratified by mode and answer place', async () => {
    const file = goodSet();
    const report = EvalReport.parse(
      JSON.parse((await decide(['eval', '--set', file, '--json', '--limit', '1'], { env: engineEnv() })).stdout),
    );
    expect(report.set).toMatchObject({ items: 1, sufficient: 1, insufficient: 0 });
    // The first stratum in order (choice, right answer in between): the carrier item, as written, in 3 more orders and without its fact.
    expect(report.records.map((r) => r.id)).toEqual(['carrier']);
    expect(report.asked).toBe(5);
    expect(report.modes.noul.n).toBe(0);
    expect(report.modes.noul.accuracy).toBeNull();
  });

  it('--compare says which figures of B differ from A beyond noise, paired item by item, and runs nothing', async () => {
    const file = goodSet();
    const a = path.join(tmp.dir, 'a.json');
    const b = path.join(tmp.dir, 'b.json');
    fs.writeFileSync(a, (await decide(['eval', '--set', file, '--json'], { env: engineEnv() })).stdout);
    // B's engine answers every question with the first option: the facts no longer count.
    sim.respond(() => ({ answer: (_id: string, question: any) => firstAnswer(question) }));
    fs.writeFileSync(b, (await decide(['eval', '--set', file, '--json'], { env: engineEnv() })).stdout);
    sim.requests.length = 0;
    const run = await decide(['eval', '--compare', a, b, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(sim.requests).toHaveLength(0);
    const comparison = JSON.parse(run.stdout);
    expect(comparison.paired).toBe(3);
    expect(comparison.figures['overall.accuracy']).toMatchObject({ a: 1, b: 0, difference: -1, differs: true, verdict: 'worse' });
    expect(comparison.figures['overall.logLoss'].verdict).toBe('worse');
    const text = await decide(['eval', '--compare', a, b]);
    expect(text.stdout).toMatch(/^overall\.accuracy\s+1\.0000\s+0\.0000\s+-1\.0000\s+\[-1\.0000, -1\.0000\]\s+worse$/m);
    // A report written before `decisiveFact.pull` was measured still compares: the figure is recomputed from its records.
    const older = JSON.parse(fs.readFileSync(a, 'utf8'));
    delete older.decisiveFact.pull;
    fs.writeFileSync(a, JSON.stringify(older));
    const again = JSON.parse((await decide(['eval', '--compare', a, b, '--json'])).stdout);
    expect(comparison.figures['decisiveFact.pull'].a).toEqual(expect.any(Number));
    expect(again.figures['decisiveFact.pull'].a).toBe(comparison.figures['decisiveFact.pull'].a);
    const bad = await decide(['eval', '--compare', a]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--compare: give two reports');
    fs.writeFileSync(b, '{"not": "a report"}');
    const wrong = await decide(['eval', '--compare', a, b]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/is not a report of this version of decide eval/);
  });

  it('--half measures one half of the set; --target-accuracy finds the cut-point that reaches it', async () => {
    const file = goodSet();
    const halves = await Promise.all(
      ['even', 'odd'].map(async (half) =>
        EvalReport.parse(JSON.parse((await decide(['eval', '--set', file, '--json', '--half', half], { env: engineEnv() })).stdout)),
      ),
    );
    expect(halves.map((r) => r.set.half)).toEqual(['even', 'odd']);
    expect(halves[0].set.items + halves[1].set.items).toBe(3);
    expect(new Set([...halves[0].records, ...halves[1].records].map((r) => r.id)).size).toBe(3);
    const gated = EvalReport.parse(
      JSON.parse((await decide(['eval', '--set', file, '--json', '--target-accuracy', '90%'], { env: engineEnv() })).stdout),
    );
    expect(gated.gating.target).toMatchObject({ accuracy: 0.9, reached: 1 });
    const refused = await decide(['eval', '--set', file, '--target-accuracy', '1.5'], { env: engineEnv() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--target-accuracy.*a share above 0 and up to 1/);
  });

  it.each([
    ['a line that is not JSON', ['{"id": "x"'], /line 2: not valid JSON/],
    ['a missing field', [JSON.stringify({ ...SET[1], id: 'x', question: undefined })], /line 2: question:/],
    [
      'an answer outside the options',
      [JSON.stringify({ ...SET[0], id: 'x', answer: 'Carrier Pink' })],
      /line 2: answer: must be one of the options/,
    ],
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
    // The disk item in its five readings (as written, three other orders, without its fact), and the approval item without its limit.
    expect(report.failed.byCode).toEqual({ engine_unavailable: 5, engine_bad_response: 1 });
    expect(report.failed.items).toContainEqual(expect.objectContaining({ id: 'disk', variant: 'reversed', code: 'engine_unavailable' }));
    expect(report.failed.items).toContainEqual(
      expect.objectContaining({ id: 'approval', variant: 'without-fact', code: 'engine_bad_response' }),
    );
    expect(report.overall.n).toBe(2);
    expect(report.decisiveFact.n).toBe(1);
  });

  it('every item failing: the report still printed, and exit 5 naming the codes', async () => {
    const file = goodSet();
    sim.respond(() => ({ status: 503 }));
    const run = await decide(['eval', '--set', file, '--json'], { env: engineEnv() });
    expect(run.code).toBe(5);
    // The report is the one JSON document on stdout: the failure adds none of its own.
    expect(JSON.parse(run.stdout).failed.byCode).toEqual({ engine_unavailable: DECISIONS });
    expect(run.stderr).toContain(`every item failed (engine_unavailable ${DECISIONS}): nothing was measured`);
  });

  it('on a terminal: a progress bar with the decisions done, then the table', async () => {
    const file = goodSet();
    sim.respond(() => ({ delayMs: 150 }));
    const run = await decideInPty(['eval', '--set', file, '--concurrency', '1'], { env: engineEnv() });
    expect(run.code).toBe(0);
    const seen = plain(run.stdout);
    expect(seen).toMatch(/Evaluating [█░]{30} ([1-9]|1[0-2])\/13 decisions, about \d+ s left/);
    expect(seen).toMatch(/Evaluating [█░]{30} 13\/13 decisions/);
    expect(seen.slice(seen.lastIndexOf('13/13 decisions'))).toMatch(/overall\s+3/);
  });

  describe('--url: a running service, paid like any other use', () => {
    const startService = async () => {
      const db = path.join(tmp.dir, 'ledger.db');
      const serving = await startServe(['--db', db], engineEnv(), scaled(20_000));
      const { key } = await runJson(['key', 'create', '--create', '--db', db]);
      return { url: serving.url, key, db };
    };
    const usage = async (url: string, key: string) =>
      (await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;

    it('says what it will spend and wants --yes without a terminal; with it, spends exactly that', {
      timeout: scaled(60_000),
    }, async () => {
      const file = goodSet();
      const { url, key } = await startService();
      const refused = await decide(['eval', '--set', file, '--url', url], { env: { DECIDE_API_KEY: key } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `makes ${REMOTE_DECISIONS} decisions at ${url}: up to ${REMOTE_DECISIONS} from today's free allowance (fewer if this address or the site has used its free decisions today), the rest from the key's pass: 0 to ${REMOTE_DECISIONS} credits; it holds 0, so the run stops if they run out`,
      );
      expect(refused.stderr).toContain('Add --yes');
      expect((await usage(url, key)).freeUsed).toBe(0);

      const run = await decide(['eval', '--set', file, '--url', url, '--yes', '--json'], { env: { DECIDE_API_KEY: key } });
      expect(run.code, run.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(run.stdout));
      expect(report.engine).toEqual({ name: `decide at ${url}`, model: 'simulated' });
      expect(report.overall.n).toBe(3);
      expect((await usage(url, key)).freeUsed).toBe(REMOTE_DECISIONS);
    });

    it('--depth stress: every decision a stress decision, priced at 5 credits and never from the free allowance', {
      timeout: scaled(60_000),
    }, async () => {
      const file = goodSet();
      const { url, db } = await startService();
      const { key, passId } = await runJson(['key', 'create', '--create', '--db', db]);
      await runJson(['pass', 'fund', '--pass', passId, '--credits', '45', '--db', db]);
      const run = await decide(['eval', '--set', file, '--url', url, '--yes', '--json', '--depth', 'stress'], {
        env: { DECIDE_API_KEY: key },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `makes ${STRESS_DECISIONS} stress decisions at ${url}: ${STRESS_DECISIONS * 5} credits of the key's pass (5 each)`,
      );
      const report = EvalReport.parse(JSON.parse(run.stdout));
      expect(report.depth).toBe('stress');
      expect(report.failed.count).toBe(0);
      expect(await usage(url, key)).toMatchObject({ freeUsed: 0, passCredits: 45 - STRESS_DECISIONS * 5 });
    });

    it('prices the per-IP free limit it cannot see as a range, and spends within it', { timeout: scaled(60_000) }, async () => {
      // The key has 20 free a day, this address 2: the run once said "N free, then 0 credits" and spent credits.
      const file = goodSet();
      const db = path.join(tmp.dir, 'ledger.db');
      const serving = await startServe(['--db', db], { ...engineEnv(), DECIDE_FREE_PER_IP: '2' }, scaled(20_000));
      const { key, passId } = await runJson(['key', 'create', '--db', db]);
      await runJson(['pass', 'fund', '--pass', passId, '--credits', '50', '--db', db]);
      const run = await decide(['eval', '--set', file, '--url', serving.url, '--yes', '--json'], { env: { DECIDE_API_KEY: key } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `up to ${REMOTE_DECISIONS} from today's free allowance (fewer if this address or the site has used its free decisions today), the rest from the key's pass: 0 to ${REMOTE_DECISIONS} credits.`,
      );
      expect(await usage(serving.url, key)).toMatchObject({ freeUsed: 2, passCredits: 50 - (REMOTE_DECISIONS - 2) });
    });

    it('a refused key stops it with exit 3; a pass that runs out stops it with exit 4', { timeout: scaled(60_000) }, async () => {
      const file = goodSet();
      const { url, key, db } = await startService();
      const other = await runJson(['key', 'create', '--create', '--db', db]);
      expect((await runCli(['revoke', '--yes', '--url', url], { DECIDE_API_KEY: other.key })).code).toBe(0);
      const revoked = await decide(['eval', '--set', file, '--url', url, '--yes'], { env: { DECIDE_API_KEY: other.key } });
      expect(revoked.code).toBe(3);
      expect(revoked.stderr).toMatch(/refused the key/);

      // Spend all but 3 of the free allowance: the evaluation's 12 decisions do not fit.
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
      expect(run.stderr).toContain(
        "up to 3 from today's free allowance (fewer if this address or the site has used its free decisions today), the rest from the key's pass: 9 to 12 credits; it holds 0, so the run stops if they run out",
      );
      expect(run.stderr).toMatch(/free_limit_reached/);
      expect((await usage(url, key)).freeUsed).toBe(20);
    });
  });
});

/** An answer that puts everything on the first option or level shown (yes for a yes/no question). */
function firstAnswer(question: any): unknown {
  if (question.type === 'noul') return noulAnswer(0.99);
  const labels: string[] = question.type === 'choice' ? Object.keys(question.criteria) : question.criteria;
  const p = labels.map((_, i) => (i === 0 ? 0.9 : 0.1 / (labels.length - 1)));
  return question.type === 'choice' ? choiceAnswer(Object.fromEntries(labels.map((label, i) => [label, p[i]]))) : scoreAnswer(p, labels);
}
