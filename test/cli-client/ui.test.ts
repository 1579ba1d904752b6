// chalk is ink's own colouring (a dependency of ink): its level decides whether styles are emitted.
import chalk from 'chalk';
import { renderToString } from 'ink';
import { render } from 'ink-testing-library';
import { createElement as h, type ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import type { DecisionResponse, Stress, Usage } from '../../src/contract/index.js';
import { DecisionView } from '../../src/cli/ui/decision-view.js';
import { ColorScope } from '../../src/cli/ui/paint.js';
import { terminalOf } from '../../src/cli/ui/present.js';
import { UsageView } from '../../src/cli/ui/usage-view.js';
import { Waiting } from '../../src/cli/ui/waiting.js';
import { barCells, checkName, quote, signalWords, sufficiencyWords, untilWords } from '../../src/cli/ui/words.js';
import { ESCAPE, plain, STYLE } from './helpers.js';
import { eventually } from '../support/time.js';

/** The ink components on their own (ink-testing-library and renderToString). */

const base = {
  question: 'Which database should the team adopt for the new service?',
  contextSufficiency: 0.875,
  model: 'm',
  inputTokens: 10,
  evaluatedAt: '2026-11-22T10:00:00.000Z',
  access: { type: 'free', freeRemaining: 19 },
  stress: null,
  timing: { processingMs: 212, averageMsToday: 230, samplesToday: 14 },
} as const;

const CHOICE: DecisionResponse = {
  ...base,
  mode: 'choice',
  result: { selected: 'PostgreSQL', confidence: 0.5, probabilities: { PostgreSQL: 0.75, MongoDB: 0.25 } },
  signal: 'directional',
};

const STRESS: Stress = {
  agreement: 0.5,
  checks: [
    {
      kind: 'reversed',
      agrees: true,
      shift: 0.04,
      result: { selected: 'PostgreSQL', confidence: 0.4, probabilities: { PostgreSQL: 0.7, MongoDB: 0.3 } },
    },
    {
      kind: 'without-fact',
      factIndex: 1,
      fact: 'The service needs transactions.',
      agrees: false,
      shift: 0.41,
      result: { selected: 'MongoDB', confidence: 0.3, probabilities: { PostgreSQL: 0.35, MongoDB: 0.65 } },
    },
  ],
  pivot: { factIndex: 1, fact: 'The service needs transactions.', shift: 0.41, flips: true },
};

const plainFrame = (node: ReactElement) => render(h(ColorScope, { color: false }, node)).lastFrame() ?? '';

describe('ink components', () => {
  it('a choice: question, one bar per option with its percentage, words for signal and context', () => {
    const frame = plainFrame(h(DecisionView, { response: CHOICE, columns: 80 }));
    expect(frame).not.toMatch(ESCAPE);
    const lines = frame.split('\n');
    expect(lines[0]).toBe(CHOICE.question);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe(`  PostgreSQL  ${'█'.repeat(23)}${'░'.repeat(7)}   75.0%  ← selected`);
    expect(lines[3]).toBe(`  MongoDB     ${'█'.repeat(8)}${'░'.repeat(22)}   25.0%`);
    // The values of the result, signal and context lines start in one column.
    expect(frame).toContain(
      'Selected: PostgreSQL, 75.0% (confidence 0.50: 0 = evenly split, 1 = certain)\nSignal:   directional: "PostgreSQL" leads the next answer by 15 points or more',
    );
    expect(frame).toContain('\nContext:  sufficient (88%)');
    expect(lines.at(-1)).toBe('free decisions left today: 19 · model m · 212 ms');
  });

  it('a stress test: the checks as a table and the pivot fact', () => {
    const frame = plainFrame(
      h(DecisionView, { response: { ...CHOICE, stress: STRESS, access: { type: 'pass', passCredits: 3 } }, columns: 80 }),
    );
    expect(frame).toContain('Stress test: 1 of 2 checks agree with the answer (agreement 50%)');
    expect(frame).toMatch(/ {2}order reversed\s+yes\s+4\.0%\s+PostgreSQL/);
    expect(frame).toMatch(/» without fact 2: "The service needs transactions."\s+no\s+41\.0%\s+MongoDB/);
    expect(frame).toContain('» Decisive fact 2: "The service needs transactions."');
    expect(frame).toContain('Without it the answer shifts by 41.0% and flips');
    expect(frame).toContain('pass credits left: 3');
  });

  it('a stress test has one verdict, beside the signal and the context; a standard answer none', () => {
    const fragile = plainFrame(h(DecisionView, { response: { ...CHOICE, stress: STRESS }, columns: 100 }));
    expect(fragile).toContain('\nContext:  sufficient (88%)\nVerdict:  fragile: one fact decides it (without fact 2 the answer changes)\n');
    const agreeing = { ...STRESS, checks: STRESS.checks.map((c) => ({ ...c, agrees: true, shift: 0.02 })), agreement: 1, pivot: null };
    const stable = plainFrame(h(DecisionView, { response: { ...CHOICE, stress: agreeing }, columns: 100 }));
    expect(stable).toContain('Verdict:  stable (every check agrees with the answer)');
    const short = { ...CHOICE, signal: 'needs-context', contextSufficiency: 0.3, stress: STRESS } as const;
    const needs = plainFrame(h(DecisionView, { response: short, columns: 100 }));
    expect(needs).toContain('Signal:   needs context: the facts given are not enough to decide; add facts and ask again');
    expect(needs).toContain(
      'Context:  insufficient, more facts are needed (30%)\nVerdict:  needs more facts (the context sufficiency is under 50%)',
    );
    expect(plainFrame(h(DecisionView, { response: CHOICE, columns: 100 }))).not.toContain('Verdict');
  });

  it('a stress test where no single fact decides it says so, not "a single fact"', () => {
    const quiet = { ...STRESS, checks: STRESS.checks.map((c) => ({ ...c, agrees: true, shift: 0.02 })), agreement: 1, pivot: null };
    const frame = plainFrame(h(DecisionView, { response: { ...CHOICE, stress: quiet }, columns: 80 }));
    expect(frame).toContain('No single fact decides it: leaving one out never flips the answer or moves it 10% or more.');
    expect(frame).not.toContain('»');
    const single = plainFrame(
      h(DecisionView, { response: { ...CHOICE, stress: { ...quiet, checks: quiet.checks.slice(0, 1) } }, columns: 80 }),
    );
    expect(single).toContain('No single fact decides it: the context holds a single fact.');
  });

  it('no pivot although a fact moves the answer: "no single fact decides it", without a reason the checks do not bear out', () => {
    const moving = { ...STRESS, pivot: null };
    const frame = plainFrame(h(DecisionView, { response: { ...CHOICE, stress: moving }, columns: 80 }));
    expect(frame).toContain('No single fact decides it.');
    expect(frame).not.toContain('never flips');
  });

  it('a pivot tied with another fact: both shifts shown alike, and the sentence says the first is named', () => {
    const third = { ...STRESS.checks[1], factIndex: 2, fact: 'Reports need joins.' } as const;
    const tied = { ...STRESS, checks: [...STRESS.checks, third] };
    const frame = plainFrame(h(DecisionView, { response: { ...CHOICE, stress: tied }, columns: 80 }));
    expect(frame.match(/ no {2,}41\.0% {2}MongoDB/g)).toHaveLength(2);
    expect(frame.replace(/\s+/g, ' ')).toContain('Leaving out fact 3 moves it as much; the first is named.');
  });

  it('colour is used only inside a colour scope, and the pivot is styled there', () => {
    const response = { ...CHOICE, stress: STRESS };
    // renderToString uses chalk's level for this process; force one so the test means something.
    const coloured = withChalkLevel(() => renderToString(h(ColorScope, { color: true }, h(DecisionView, { response, columns: 80 }))));
    expect(coloured).toMatch(STYLE);
    const pivotLine = coloured.split('\n').find((line) => plain(line).includes('Decisive fact 2'));
    expect(pivotLine).toMatch(/\x1b\[33mDecisive\b/);
    const uncoloured = withChalkLevel(() => renderToString(h(ColorScope, { color: false }, h(DecisionView, { response, columns: 80 }))));
    expect(uncoloured).not.toMatch(ESCAPE);
  });

  it('usage: allowance as a bar, credits, reset time', () => {
    // The machine's clock reads UTC here; another zone's local time is added, as account.test.ts shows.
    process.env.TZ = 'UTC';
    const usage: Usage = {
      day: '2026-11-22',
      freeLimit: 20,
      freeUsed: 5,
      freeRemaining: 15,
      passCredits: 40,
      resetsAt: '2026-11-23T00:00:00.000Z',
    };
    const frame = plainFrame(h(UsageView, { usage, columns: 100, now: Date.parse('2026-11-22T18:48:00.000Z') }));
    expect(frame).toBe(
      [
        `Free decisions today (2026-11-22): 15 of 20 left  ${'█'.repeat(15)}${'░'.repeat(5)}`,
        'Pass credits: 40',
        'The free allowance resets at 00:00 UTC, in 5 h 12 min.',
      ].join('\n'),
    );
  });

  it('the spinner animates beside its label', async () => {
    const app = render(h(ColorScope, { color: false }, h(Waiting, { label: 'Deciding…' })));
    try {
      expect(app.lastFrame()).toMatch(/^\S Deciding…$/);
      // It turns: a second, different frame comes, however long the machine takes to draw it.
      await eventually(() => new Set(app.frames).size > 1, 'a second spinner frame');
      expect(new Set(app.frames).size).toBeGreaterThan(1);
    } finally {
      app.unmount();
    }
  });

  it('words: bars, signals, sufficiency, names of checks, durations', () => {
    expect(barCells(0.75, 30)).toEqual([23, 7]);
    expect(barCells(1, 10)).toEqual([10, 0]);
    expect(barCells(0, 10)).toEqual([0, 10]);
    expect(signalWords({ signal: 'unclear', result: { yesProbability: 0.5 } })).toContain('between 40% and 60%');
    expect(signalWords({ signal: 'needs-context', result: { yesProbability: 0.9 } })).toMatch(/^needs context/);
    expect(sufficiencyWords(0.8)).toBe('sufficient (80%)');
    expect(sufficiencyWords(0.5)).toBe('partly sufficient (50%)');
    expect(sufficiencyWords(0.49)).toBe('insufficient, more facts are needed (49%)');
    expect(quote('abcdef', 4)).toBe('"abc…"');
    // Cut at a space, so no word is broken, when that keeps half of the text.
    expect(quote('The service needs transactions across tables.', 30)).toBe('"The service needs…"');
    expect(checkName(STRESS.checks[0])).toBe('order reversed');
    expect(untilWords('2026-11-22T10:30:00.000Z', Date.parse('2026-11-22T10:00:00.000Z'))).toBe('30 min');
  });

  it('terminalOf: live and coloured only on a TTY, NO_COLOR and TERM=dumb respected', () => {
    const tty = { isTTY: true, columns: 90 } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(terminalOf(tty, {})).toEqual({ interactive: true, color: true, columns: 90 });
    expect(terminalOf(tty, { NO_COLOR: '1' })).toEqual({ interactive: true, color: false, columns: 90 });
    expect(terminalOf(tty, { NO_COLOR: '' }).color).toBe(true);
    expect(terminalOf(tty, { TERM: 'dumb' })).toMatchObject({ interactive: false, color: false });
    expect(terminalOf(pipe, {})).toEqual({ interactive: false, color: false, columns: 80 });
  });
});

/** Runs `work` with chalk at level 1 (16 colours), as on a colour terminal. */
function withChalkLevel<T>(work: () => T): T {
  return withLevel(1, work);
}

function withLevel<T>(level: 0 | 1 | 2 | 3, work: () => T): T {
  const before = chalk.level;
  chalk.level = level;
  try {
    return work();
  } finally {
    chalk.level = before;
  }
}
