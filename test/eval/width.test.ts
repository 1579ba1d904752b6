import { renderToString } from 'ink';
import { createElement as h } from 'react';
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EvalTable } from '../../src/cli/ui/eval-view.js';
import { ColorScope } from '../../src/cli/ui/paint.js';
import { parseSet } from '../../src/eval/item.js';
import { EvalReport } from '../../src/eval/report.js';
import { decide, decideInPty, killAll, tempFolder, type TempFolder } from '../cli-client/helpers.js';
import { screenOf } from '../cli-client/screen.js';
import { startSimulatedModel } from '../fakes/simulated-model.js';
import type { SystemOneFake } from '../fakes/systemone-fake.js';
import { assertBuilt } from '../support/cli.js';

/**
 * `decide eval`'s report and `--compare`'s table laid out at the terminal's width from
 * 60 columns up, measured in screen cells (a model and a set named in CJK and emoji),
 * no word broken or lost, the sections' hanging indents kept; on a pipe, at 80.
 */

const SET = [
  {
    id: 'carrier',
    mode: 'choice',
    question: 'Which carrier should we book for the order?',
    context:
      'We book the cheapest carrier that delivers within the deadline. Carrier Blue costs 40 dollars and takes 6 days. ' +
      'Carrier Red costs 55 dollars and takes 3 days. The customer needs the goods within 4 days.',
    options: ['Carrier Blue', 'Carrier Red', '東京オフィス'],
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
const MODEL = '🚀 Remote 東京オフィス';

/** The words on screen, sorted: wrapping moves them, never breaks or drops one. Column names may stand beside each row instead of above. */
const words = (lines: string[]) =>
  lines
    .join(' ')
    .split(/\s+/)
    .filter((word) => word !== '')
    .sort();

const fits = (lines: string[], columns: number) => {
  for (const line of lines) expect(stringWidth(line), `${line}\n---\n${lines.join('\n')}`).toBeLessThanOrEqual(columns);
};

describe('decide eval at the terminal width', () => {
  let sim: SystemOneFake;
  let tmp: TempFolder;
  let setFile: string;
  let reportFile: string;
  let report: EvalReport;
  const env = () => ({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: sim.url, DECIDE_MODEL: MODEL });
  beforeAll(async () => {
    assertBuilt();
    sim = await startSimulatedModel(parseSet(SET.map((i) => JSON.stringify(i)).join('\n'), 'set'), {
      accuracy: 0.8,
      temperature: 1,
      positionBias: 0.4,
      sufficiencySeparation: 0.6,
    });
    tmp = tempFolder();
    setFile = tmp.write('東京オフィスの判断.jsonl', SET.map((item) => JSON.stringify(item)).join('\n') + '\n');
    const run = await decide(['eval', '--set', setFile, '--json', '--target-accuracy', '0.9'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    reportFile = tmp.write('a.json', run.stdout);
    report = EvalReport.parse(JSON.parse(run.stdout));
  });
  afterAll(async () => {
    tmp?.remove();
    await sim?.close();
  });
  afterEach(killAll);

  const render = (columns: number) =>
    renderToString(h(ColorScope, { color: false }, h(EvalTable, { report, columns })), { columns }).split('\n');

  describe.each([60, 80, 120])('the report at %i columns', (columns) => {
    it('no line wider than the terminal, no word broken or lost', () => {
      const lines = render(columns);
      fits(lines, columns);
      const wide = render(1000);
      // The gating table turns down its side when it does not fit across: the same words either way.
      expect(words(lines)).toEqual(words(wide));
      expect(lines.join(' ')).toContain('東京オフィスの判断.jsonl');
    });

    it("the sections' names in a column of their own, what they say wrapping under itself", () => {
      const lines = render(columns);
      for (const name of ['Order', 'Sufficiency', 'Decisive fact', 'Gating']) {
        const start = lines.findIndex((line) => line.startsWith(`${name} `));
        expect(start, `${name} in\n${lines.join('\n')}`).toBeGreaterThan(0);
        expect(lines[start].slice(16, 17), lines[start]).toMatch(/\S/);
        expect(lines[start].slice(name.length, 16).trim(), lines[start]).toBe('');
      }
      // Every line between the first section and the last is a section's first line or hangs under its text.
      const first = lines.findIndex((line) => line.startsWith('Order '));
      for (const line of lines.slice(first))
        if (!/^(Order|Sufficiency|Decisive fact|Gating|Failed) /.test(line)) expect(line, lines.join('\n')).toMatch(/^ {16}/);
    });
  });

  it('on a pipe: laid out at 80 columns', async () => {
    const run = await decide(['eval', '--compare', reportFile, reportFile]);
    expect(run.code, run.stderr).toBe(0);
    fits(run.stdout.trimEnd().split('\n'), 80);
    expect(run.stdout).toMatch(/^overall\.accuracy\s+\d\.\d{4}\s+\d\.\d{4}\s+\+0\.0000\s+\[0\.0000, 0\.0000\]\s+within noise$/m);
  });

  it.each([60, 80, 120])(
    '--compare on a terminal %i columns wide: laid out at its width, a name broken only after a dot',
    async (columns) => {
      const run = await decideInPty(['eval', '--compare', reportFile, reportFile], { columns });
      expect(run.code).toBe(0);
      const screen = screenOf(run.stdout, columns);
      fits(screen, columns);
      // The first column, read down: a piece ending in a dot goes on on the next line.
      const header = screen.findIndex((line) => line.startsWith('figure '));
      const names: string[] = [];
      let pending = '';
      for (const line of screen.slice(header + 1)) {
        const piece = line.split(/\s+/)[0];
        if (!piece) continue;
        pending += piece;
        if (!pending.endsWith('.')) {
          names.push(pending);
          pending = '';
        }
      }
      const figures = Object.keys(JSON.parse((await decide(['eval', '--compare', reportFile, reportFile, '--json'])).stdout).figures);
      expect(names).toEqual(figures);
    },
  );

  it('the report on a terminal 60 columns wide, after its progress bar', async () => {
    const run = await decideInPty(['eval', '--set', setFile], { env: env(), columns: 60 });
    expect(run.code).toBe(0);
    const screen = screenOf(run.stdout, 60);
    fits(screen, 60);
    expect(screen.join('\n')).toMatch(/^Gating {10}/m);
  });
});
