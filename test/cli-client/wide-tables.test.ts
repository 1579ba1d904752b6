import { renderToString } from 'ink';
import type { ReactElement } from 'react';
import { createElement as h } from 'react';
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CalibrationTable, FitReport } from '../../src/cli/ui/calibrate-report.js';
import { ColorScope } from '../../src/cli/ui/paint.js';
import type { Fit } from '../../src/eval/calibrate.js';
import type { Calibration } from '../../src/ledger/store.js';
import { openStore } from '../../src/ledger/open.js';
import { assertBuilt, tempDb, type TempDb } from '../support/cli.js';
import { LIMITS } from '../ledger/helpers.js';
import { decide, decideInPty, killAll } from './helpers.js';
import { screenOf } from './screen.js';

/**
 * `decide calibrate`'s and `decide eval --compare`'s tables at the widths people use:
 * laid out at the terminal's width from 60 columns up, measured in screen cells, no
 * word broken; on a pipe, at 80.
 */

const WIDE_MODEL = '🚀 Remote 東京オフィス-q4';

const fit = (target: Fit['target'], kept: boolean): Fit => ({
  target,
  temperature: kept ? 1.4213 : 0.25,
  offsets: null,
  kept,
  stored: kept ? 1.4213 : 1,
  storedOffsets: null,
  reason: kept
    ? 'kept: the held-out log loss fell by 0.041, its interval wholly below 0, so serve applies it from now on'
    : 'not kept: the held-out log loss did not fall beyond noise (its interval reaches above 0), so T = 1 is stored',
  fitted: 120,
  heldOut: 118,
  eceBefore: 0.1234,
  eceAfter: 0.0456,
  logLossBefore: 0.6912,
  logLossAfter: 0.6522,
  logLossDifference: -0.0409,
  logLossInterval: { low: -0.0612, high: -0.0201 },
  boundHit: !kept,
});
const FITS = [fit('choice', true), fit('sufficiency', false)];
const INTRO = `local, model ${WIDE_MODEL}, debias reverse: 80 items of eval/decisions.jsonl, fitted on the even half and judged on the odd half`;
const KEPT = `Kept in ledger.db: decide serve applies choice T = 1.42 to local ${WIDE_MODEL}; T = 1 stored for sufficiency. decide calibrate --reset removes them.`;

const calibration = (target: Calibration['target'], temperature: number): Calibration => ({
  engine: 'local',
  model: WIDE_MODEL,
  debias: 'reverse',
  target,
  temperature,
  offsets: null,
  fitted: 120,
  heldOut: 118,
  eceBefore: 0.1234,
  eceAfter: 0.0456,
  fittedAt: '2026-11-22T18:48:09.123Z',
});
const CALIBRATIONS = [calibration('choice', 1.4213), calibration('sufficiency', 1)];

const render = (node: (columns: number) => ReactElement, columns: number) =>
  renderToString(h(ColorScope, { color: false }, node(columns)), { columns }).split('\n');

/**
 * The words on screen, sorted: wrapping moves them, never breaks or drops one. A table
 * too wide for the terminal shows its column names beside each row's values instead
 * of once above them: those, and the colon after them, are left out.
 */
const HEADERS = new Set([
  'engine',
  'model',
  'target',
  'temperature',
  'kept',
  'fitted',
  '/',
  'held',
  'out',
  'held-out',
  'ECE',
  'log',
  'loss',
  'change',
  '[95',
  '%]',
  'at',
]);
const words = (lines: string[]) =>
  lines
    .join(' ')
    .split(/\s+/)
    .map((word) => word.replace(/:$/, ''))
    .filter((word) => word !== '' && !HEADERS.has(word))
    .sort();

const fitReport = (columns: number) => h(FitReport, { intro: INTRO, fits: FITS, kept: KEPT, columns });
const shown = (columns: number) => h(CalibrationTable, { all: CALIBRATIONS, columns });

describe.each([60, 80, 120])('decide calibrate at %i columns', (columns) => {
  it('the report: no line wider than the terminal, no word broken or lost', () => {
    const lines = render(fitReport, columns);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    expect(words(lines)).toEqual(words(render(fitReport, 1000)));
  });

  it("each target's verdict wraps under itself, its hanging indent kept", () => {
    const lines = render(fitReport, columns);
    const start = lines.findIndex((line) => line.startsWith('sufficiency: not kept'));
    expect(start, lines.join('\n')).toBeGreaterThan(0);
    const indent = 'sufficiency: '.length;
    const rest = lines.slice(start + 1, lines.indexOf('', start));
    if (columns < 120) expect(rest.length, lines.join('\n')).toBeGreaterThan(0);
    for (const line of rest) expect(line, lines.join('\n')).toMatch(new RegExp(`^ {${indent}}\\S`));
  });

  it('--show: the wide model name whole, in screen cells, no line past the edge, times in words', () => {
    const lines = render(shown, columns);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    expect(words(lines)).toEqual(words(render(shown, 1000)));
    expect(lines.join(' ')).toContain('東京オフィス-q4');
    expect(lines.join('\n')).not.toMatch(/\d{4}-\d\d-\d\dT/);
    for (const word of ['2026-11-22', '18:48', 'UTC']) expect(words(lines)).toContain(word);
  });
});

describe('decide calibrate --show as a child process', () => {
  let tmp: TempDb;
  beforeAll(async () => {
    assertBuilt();
    tmp = tempDb();
    const store = await openStore(tmp.db, LIMITS);
    for (const c of CALIBRATIONS) await store.calibrations.save(c);
    await store.close();
  });
  afterAll(() => tmp.remove());
  afterEach(killAll);

  it('on a pipe: laid out at 80 columns', async () => {
    const run = await decide(['calibrate', '--show', '--db', tmp.db]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(Math.max(...lines.map((line) => stringWidth(line))), run.stdout).toBeGreaterThan(60);
  });

  it.each([60, 120])('on a terminal %i columns wide: laid out at its width', async (columns) => {
    const run = await decideInPty(['calibrate', '--show', '--db', tmp.db], { columns });
    expect(run.code).toBe(0);
    const screen = screenOf(run.stdout, columns);
    for (const line of screen) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    expect(screen.join(' ')).toContain('東京オフィス-q4');
    if (columns === 120) expect(screen.find((line) => line.includes('choice'))).toMatch(/^local\s+🚀 Remote 東京オフィス-q4\s+choice\s+/);
  });
});
