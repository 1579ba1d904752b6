import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OpenAIBehaviour } from '../fakes/openai-fake.js';
import { assertBuilt } from '../support/cli.js';
import { factsText } from '../fakes/openai-fake.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { isSufficiencyProbe, scripted, tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { gate } from '../support/time.js';
import { decideInPty, killAll, plain, STYLE } from './helpers.js';
import { screenOf } from './screen.js';

/** Spinner frames of ink-spinner's "dots". */
const DOTS = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g;

/** The human output on a pseudo-terminal: what a person at a terminal gets. */
describe('decide ask on a terminal', () => {
  let svc: Running;
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());
  beforeEach(() => svc.fake.reset());
  afterEach(killAll);

  const env = (key: string, extra: Record<string, string> = {}) => ({ DECIDE_URL: svc.url, DECIDE_API_KEY: key, ...extra });
  const ask = ['ask', CHOICE.question, '--context', CHOICE.context, '--option', 'PostgreSQL', '--option', 'MongoDB'];

  /**
   * The engine answers (`behaviour`) only once the terminal has shown `frames` different
   * spinner frames (2: the spinner has turned), however slow the machine. Returns the
   * `watch` to pass to decideInPty, which sees the pty's output so far.
   */
  const onceTheSpinnerShowed = (frames: number, behaviour: (body: any) => OpenAIBehaviour) => {
    const shown = gate();
    svc.fake.respond((body) => ({ ...behaviour(body), until: shown.promise }));
    return (output: string) => {
      if (new Set(output.match(DOTS)).size >= frames) shown.open();
    };
  };
  const decided = scripted({ PostgreSQL: 0.75, MongoDB: 0.25 }, { Yes: 0.9, No: 0.1 });

  /**
   * Scripts a stress test of `facts` between two options, and returns its arguments:
   * the second fact moves the answer most (the pivot), the first a little, the others not.
   */
  const stressOn = (facts: string[], options: [string, string]) => {
    svc.fake.respond((body) => {
      if (isSufficiencyProbe(body)) return { labels: tokens(body, { Yes: 0.9, No: 0.1 }) };
      const text = factsText(body);
      const first = 0.3 + (text.includes(facts[1]) ? 0.45 : 0) + (text.includes(facts[0]) ? 0.05 : 0);
      return { labels: tokens(body, { [options[0]]: first, [options[1]]: 1 - first }) };
    });
    return ['stress', CHOICE.question, '--context', facts.join(' '), ...options.flatMap((o) => ['--option', o])];
  };

  it('a spinner while waiting, then the answer in colour in its place', async () => {
    const { key } = await svc.newKey();
    const watch = onceTheSpinnerShowed(2, decided);
    const run = await decideInPty(ask, { env: env(key), watch });
    expect(run.code).toBe(0);
    const frames = new Set(run.stdout.match(DOTS));
    expect(frames.size, 'the spinner should turn').toBeGreaterThan(1);
    expect(plain(run.stdout)).toContain('Deciding…');
    expect(run.stdout).toMatch(STYLE);
    const seen = plain(run.stdout);
    // The final frame: the answer, with the spinner gone from it.
    const answer = seen.slice(seen.lastIndexOf(CHOICE.question));
    expect(answer).toMatch(/PostgreSQL\s+█+░+\s+75\.0%\s+← selected/);
    expect(answer).toContain('Signal:   directional');
    expect(answer).toContain('Context:  sufficient (90%)');
    expect(answer).not.toMatch(DOTS);
    expect(answer).not.toContain('Deciding…');
  });

  it('NO_COLOR: the same answer without a colour or style code', async () => {
    const { key } = await svc.newKey();
    const watch = onceTheSpinnerShowed(2, decided);
    const run = await decideInPty(ask, { env: env(key, { NO_COLOR: '1' }), watch });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(STYLE);
    expect(plain(run.stdout)).toMatch(/PostgreSQL\s+█+░+\s+75\.0%\s+← selected/);
  });

  it('TERM=dumb: plain text, no escape codes at all, no spinner', async () => {
    const { key } = await svc.newKey();
    const run = await decideInPty(['ask', NOUL.question, '--context', NOUL.context], { env: env(key, { TERM: 'dumb' }) });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/\x1b/);
    expect(run.stdout).not.toMatch(DOTS);
    expect(run.stdout.replace(/\r/g, '')).toContain('Probability of yes:');
  });

  it('--json on a terminal: only the JSON body, no spinner', async () => {
    const { key } = await svc.newKey();
    const run = await decideInPty([...ask, '--json'], { env: env(key) });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/\x1b/);
    expect(JSON.parse(run.stdout).mode).toBe('choice');
  });

  it('a stress test on a terminal 80 columns wide: the table fits, no word broken, the pivot marked', async () => {
    const { key } = await svc.newKey(5);
    const facts = [
      'The team has run PostgreSQL in production for six years and knows how to operate it.',
      'The service needs transactions across several tables for every single order.',
    ];
    const options: [string, string] = ['PostgreSQL with logical replication', 'MongoDB Atlas'];
    const args = stressOn(facts, options);
    const run = await decideInPty(args, { env: env(key), columns: 80 });
    expect(run.code).toBe(0);
    const screen = screenOf(run.stdout, 80);
    const header = screen.findIndex((line) => /^ {2}Check\s+Agrees\s+Shift\s+Answer$/.test(line));
    expect(header, screen.join('\n')).toBeGreaterThan(0);
    const table = screen.slice(header + 1, screen.indexOf('', header));
    const pivotRow = table.find((line) => line.startsWith('» without fact 2: "The service'))!;
    expect(pivotRow).toMatch(/\s no\s+45\.0%\s+MongoDB Atlas$/);
    // Every word of the facts and options stands whole in the table (the check column wraps between words).
    const words = new Set(table.join(' ').split(/\s+/));
    for (const text of [...facts.map((fact) => `"${fact}"`), ...options]) {
      for (const word of text.split(' ')) expect(words, `"${word}" whole in:\n${table.join('\n')}`).toContain(word);
    }
    expect(screen.join('\n')).toContain('» Decisive fact 2: "The service needs transactions');
  });

  it('an answer taller than an 80×24 terminal scrolls: the screen and the earlier output stay, and it ends with a newline', async () => {
    const { key } = await svc.newKey(5);
    const facts = [
      'The team has run PostgreSQL in production for six years and knows how to operate it.',
      'The service needs transactions across several tables for every single order.',
      'Reports for the finance team join orders, refunds and invoices every night.',
      'The documents of the catalogue change shape every few weeks as suppliers add fields.',
    ];
    const args = stressOn(facts, ['PostgreSQL with logical replication', 'MongoDB Atlas']);
    const before = 'earlier output, and the command typed after it';
    const run = await decideInPty(args, { env: env(key), columns: 80, rows: 24, before });
    expect(run.code).toBe(0);
    // ink clears the whole screen and the scrollback (ESC[2J, ESC[3J) once its frame fills the window.
    expect(run.stdout).not.toMatch(/\x1b\[[23]J/);
    const screen = screenOf(run.stdout, 80);
    expect(screen[0]).toBe(before);
    // The spinner's line gives way to the answer: no blank line left where it stood.
    expect(screen[1]).toBe(CHOICE.question);
    const answer = screen.slice(1);
    expect(answer.length, 'the answer should be taller than the terminal').toBeGreaterThan(24);
    // The footer last, wrapped on a narrow terminal.
    expect(answer.slice(-3).join(' ')).toMatch(/pass credits left: \d+ · model .* on the answers · \d+ ms$/);
    expect(answer.join('\n')).not.toMatch(DOTS);
    // The shell's prompt starts on a line of its own (after the text; ink shows the cursor again at exit).
    expect(plain(run.stdout)).toMatch(/\n$/);
  });

  it('a retry on a terminal counts down its wait beside the spinner, then the answer takes its place', async () => {
    const { key } = await svc.newKey();
    // The engine is unavailable once, asking for 3 s; then it answers.
    let calls = 0;
    svc.fake.respond((body) => (calls++ === 0 ? { status: 500, headers: { 'retry-after': '3' } } : decided(body)));
    const run = await decideInPty(ask, { env: env(key), columns: 120 });
    expect(run.code).toBe(0);
    // The notice may wrap beside the spinner: read with its line breaks as spaces.
    const seen = plain(run.stdout).replace(/\s+/g, ' ');
    for (const seconds of [3, 2, 1]) expect(seen).toContain(`engine_unavailable); retrying in ${seconds} s (attempt 2 of 3)`);
    expect(seen.indexOf('retrying in 3 s')).toBeLessThan(seen.indexOf('retrying in 1 s'));
    const screen = screenOf(run.stdout, 120);
    expect(screen[0]).toBe(CHOICE.question);
    expect(screen.join('\n')).not.toContain('retrying');
  });

  it('an error on a terminal: the spinner is cleared and the message stays', async () => {
    const { key } = await svc.newKey();
    // The engine fails once the spinner is on the screen.
    const watch = onceTheSpinnerShowed(1, () => ({ garbage: true }));
    const run = await decideInPty(ask, { env: env(key), watch });
    expect(run.code).toBe(5);
    // What the terminal shows at the end: the message where the spinner was, no blank line before it, no spinner left.
    const screen = screenOf(run.stdout, 120);
    expect(screen[0]).toMatch(/^decide: /);
    // One sentence, wrapped between words to the terminal's width: read back with its breaks as spaces.
    expect(screen.join(' ')).toMatch(/^decide: [^\n]*\(502 engine_bad_response\); request id req_\w+$/);
    expect(screen.join('\n')).not.toMatch(DOTS);
  });
});
