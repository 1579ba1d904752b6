import { renderToString } from 'ink';
import { createElement as h } from 'react';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { ChoiceResponse, DecisionResponse, Stress, Usage } from '../../src/contract/index.js';
import { DecisionView } from '../../src/cli/ui/decision-view.js';
import { EvalProgress } from '../../src/cli/ui/eval-view.js';
import { ColorScope } from '../../src/cli/ui/paint.js';
import { UsageView } from '../../src/cli/ui/usage-view.js';

/** The human output at the widths people use: 80 and 120 columns, and 60, the narrowest it fits. */

const LONG = 'Keep the current monolith and add read replicas for the reporting queries until next year';
const SHORT = 'Split out billing';
const THIRD = 'PostgreSQL';
const FACTS = [
  'Short.',
  'Billing is where 80% of the incidents of the last quarter came from, according to the on-call log kept by the platform team since March.',
  'The reporting queries slow the checkout down every Monday morning.',
];

const choice = (selected: string): ChoiceResponse['result'] => ({
  selected,
  confidence: 0.3,
  probabilities: { [LONG]: 0.3334, [SHORT]: 0.3333, [THIRD]: 0.3333 },
});

const STRESS: Stress = {
  agreement: 0.25,
  checks: [
    { kind: 'reversed', agrees: false, shift: 0.1, result: choice(SHORT) },
    { kind: 'without-fact', factIndex: 0, fact: FACTS[0], agrees: true, shift: 0.02, result: choice(LONG) },
    { kind: 'without-fact', factIndex: 1, fact: FACTS[1], agrees: false, shift: 0.3012, result: choice(SHORT) },
    { kind: 'without-fact', factIndex: 2, fact: FACTS[2], agrees: false, shift: 0.3009, result: choice(THIRD) },
  ],
  pivot: { factIndex: 1, fact: FACTS[1], shift: 0.3012, flips: true },
};

const RESPONSE: DecisionResponse = {
  mode: 'choice',
  question: 'Which architecture should the platform team commit to for the next two years of growth?',
  result: choice(LONG),
  signal: 'unclear',
  contextSufficiency: 0.4,
  model: 'fake-model-1',
  evaluatedAt: '2026-11-22T10:00:00.000Z',
  access: { type: 'pass', passCredits: 12 },
  stress: STRESS,
  timing: { processingMs: 212, averageMsToday: 230, samplesToday: 14 },
};

const view = (response: DecisionResponse, columns: number) =>
  renderToString(h(ColorScope, { color: false }, h(DecisionView, { response, columns })), { columns }).split('\n');

/** The words on screen, bars left out (their length follows the width). */
const words = (lines: string[]) =>
  lines
    .join(' ')
    .split(/\s+/)
    .filter((word) => word !== '' && !/^[█░]+$/.test(word))
    .sort();

/** Cells on screen, as a terminal draws them: a CJK character or an emoji takes two. */
const width = (line: string) => stringWidth(line);

describe.each([60, 80, 120])('at %i columns', (columns) => {
  const lines = view(RESPONSE, columns);

  it('no line is wider than the terminal', () => {
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
  });

  it('no word is broken or lost: the same words as on a screen too wide to wrap anything', () => {
    expect(words(lines)).toEqual(words(view(RESPONSE, 1000)));
  });

  it('the stress table: Agrees, Shift and Answer whole on the first line of each check, in their columns', () => {
    const header = lines.find((line) => /^ {2}Check\s+Agrees\s+Shift\s+Answer$/.test(line))!;
    expect(header).toBeDefined();
    const rows: Array<[start: string, agrees: string, shift: string, answer: string]> = [
      ['  order reversed', 'no', '10.00%', 'Split out billing'],
      ['  without fact 1: "Short."', 'yes', '2.00%', 'Keep'],
      ['» without fact 2: "Billing', 'no', '30.12%', 'Split out billing'],
      ['  without fact 3: "The', 'no', '30.09%', 'PostgreSQL'],
    ];
    for (const [start, agrees, shift, answer] of rows) {
      const row = lines.find((line) => line.startsWith(start))!;
      expect(row, start).toBeDefined();
      expect(row.indexOf(` ${agrees} `), row).toBe(header.indexOf('Agrees') - 1);
      expect(row.indexOf(shift) + shift.length, row).toBe(header.indexOf('Shift') + 'Shift'.length);
      // A long answer wraps in its column (at 60 columns even "Split out billing"), its words whole.
      expect(row.indexOf(answer.split(' ')[0]), row).toBe(header.indexOf('Answer'));
    }
  });

  it('Shift is said in words above the table: how far the answer moves, 0% to 100%, its lines flush', () => {
    const header = lines.findIndex((line) => /^ {2}Check\s+Agrees\s+Shift\s+Answer$/.test(line));
    const start = lines.findIndex((line) => line.startsWith('Shift: how far the answer moves'));
    expect(start, lines.join('\n')).toBeGreaterThan(0);
    expect(start).toBeLessThan(header);
    expect(lines.slice(start, header).join(' ')).toBe(
      'Shift: how far the answer moves in that check, from 0% (not at all) to 100% (wholly onto other answers): ' +
        'the share of probability that moves between the answers (their total variation distance).',
    );
  });

  it('the pivot stands apart from a close second: 30.12% against 30.09%, and its sentence wraps flush', () => {
    const start = lines.findIndex((line) => line.startsWith('» Decisive fact 2: "Billing is where 80%'));
    expect(start).toBeGreaterThan(0);
    const sentence = lines.slice(start + 1, lines.indexOf('', start));
    expect(sentence.join(' ')).toContain('Without it the answer shifts by 30.12% and flips');
    for (const line of sentence) expect(line, 'a wrapped line starts under the one above').toMatch(/^ {2}\S/);
  });

  it('the values of the result, the signal and the context start in one column', () => {
    const starts = ['Selected:', 'Signal:', 'Context:'].map((label) => {
      const line = lines.find((l) => l.startsWith(label))!;
      return line.length - line.slice(label.length).trimStart().length;
    });
    expect(new Set(starts).size, starts.join(' ')).toBe(1);
  });

  it('the percentages of the answer sum to exactly 100.0%', () => {
    const shown = lines.filter((line) => line.includes('█') || line.includes('░')).map((line) => Number(line.match(/(\d+\.\d)%/)![1]));
    expect(shown).toEqual([33.4, 33.3, 33.3]);
    expect(Math.round(shown.reduce((a, b) => a + b, 0) * 10)).toBe(1000);
  });
});

describe.each([60, 80, 120])('decide eval progress at %i columns', (columns) => {
  it('fits: the bar gives way to the counts, and no word is broken', () => {
    const progress = { done: 123, total: 1266, failed: 13, elapsedMs: 400_000 };
    const at = (width: number) => renderToString(h(EvalProgress, { ...progress, columns: width }), { columns: width }).split('\n');
    const lines = at(columns);
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
    expect(lines[0]).toMatch(/^Evaluating █+░+ 123\/1266 decisions,/);
    expect(words(lines)).toEqual(words(at(1000)));
  });
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each([60, 80, 120])('wide characters at %i columns: labels measured in screen cells, not code points', (columns) => {
  const TOKYO = '東京オフィス';
  const ROCKET = '🚀 Remote';
  const wide: DecisionResponse = {
    ...RESPONSE,
    question: 'Where should the team work from next year?',
    result: { selected: TOKYO, confidence: 0.5, probabilities: { [TOKYO]: 0.55, [ROCKET]: 0.3, Hybrid: 0.15 } },
    stress: null,
  };
  const lines = view(wide, columns);

  it('no line is wider than the terminal, and each label stays whole beside its bar, the bars in one column', () => {
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
    const rows = [
      [TOKYO, '55.0%  ← selected'],
      [ROCKET, '30.0%'],
      ['Hybrid', '15.0%'],
    ];
    const barStarts = rows.map(([label, share]) => {
      const row = new RegExp(`^ {2}${escaped(label)} +[█░]+ +${escaped(share)}$`, 'm');
      expect(lines.join('\n')).toMatch(row);
      const line = lines.find((line) => row.test(line))!;
      return width(line.slice(0, line.search(/[█░]/)));
    });
    expect(new Set(barStarts).size, lines.join('\n')).toBe(1);
  });
});

const SMALL: Usage = {
  day: '2026-11-22',
  freeLimit: 20,
  freeUsed: 7,
  freeRemaining: 13,
  passCredits: 40,
  resetsAt: '2026-11-23T00:00:00.000Z',
};
const LARGE: Usage = { ...SMALL, freeLimit: 10_000, freeUsed: 766, freeRemaining: 9234, passCredits: 123_456 };
const WIDTHS = Array.from({ length: 61 }, (_, i) => 60 + i);

// The machine's clock reads UTC here; another zone's local time is added, as account.test.ts shows.
process.env.TZ = 'UTC';

describe.each([
  ['13 of 20', SMALL],
  ['9234 of 10000', LARGE],
])('decide usage (%s left) at every width from 60 to 120 columns', (_, usage) => {
  const now = Date.parse('2026-11-22T18:48:00.000Z');
  const at = (columns: number) =>
    renderToString(h(ColorScope, { color: false }, h(UsageView, { usage, columns, now })), { columns }).split('\n');

  it.each(WIDTHS)('%i: the counts and the bar whole, nothing past the edge', (columns) => {
    const lines = at(columns);
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
    expect(
      lines.filter((line) => line.trim() === ''),
      lines.join('\n'),
    ).toEqual([]);
    const counts = `Free decisions today (2026-11-22): ${usage.freeRemaining} of ${usage.freeLimit} left`;
    expect(lines[0], lines.join('\n')).toMatch(new RegExp(`^${counts.replace(/[()]/g, '\\$&')}(?: {2}[█░]+)?$`));
    // One bar, on one line, its filled share the share of decisions left.
    const bars = lines.flatMap((line) => line.match(/█*░*$/)?.[0] || []);
    expect(bars, lines.join('\n')).toHaveLength(1);
    const filled = bars[0].split('█').length - 1;
    expect(bars[0].length).toBeGreaterThanOrEqual(10);
    expect(filled).toBe(Math.round((usage.freeRemaining / usage.freeLimit) * bars[0].length));
    expect(lines).toContain(`Pass credits: ${usage.passCredits}`);
    // The reset sentence may wrap, between words, but never inside "00:00 UTC" or "in 5 h 12 min.".
    expect(lines.some((line) => line.endsWith('in 5 h 12 min.'))).toBe(true);
    expect(lines.some((line) => line.endsWith('00:00') || line.startsWith('UTC'))).toBe(false);
    expect(lines.slice(lines.indexOf(`Pass credits: ${usage.passCredits}`) + 1).join(' ')).toBe(
      'The free allowance resets at 00:00 UTC, in 5 h 12 min.',
    );
  });
});
