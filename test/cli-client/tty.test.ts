import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { decideInPty, killAll, plain, STYLE } from './helpers.js';

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
  beforeEach(() => svc.fake.respond());
  afterEach(killAll);

  const env = (key: string, extra: Record<string, string> = {}) => ({ DECIDE_URL: svc.url, DECIDE_API_KEY: key, ...extra });
  const ask = ['ask', CHOICE.question, '--context', CHOICE.context, '--option', 'PostgreSQL', '--option', 'MongoDB'];

  /** The engine answers slowly, so the spinner has time to turn. */
  const slowly = () => {
    const answer = scripted({ PostgreSQL: 0.75, MongoDB: 0.25 }, { Yes: 0.9, No: 0.1 });
    svc.fake.respond((body) => ({ ...answer(body), delayMs: 700 }));
  };

  it('a spinner while waiting, then the answer in colour in its place', async () => {
    const { key } = await svc.newKey();
    slowly();
    const run = await decideInPty(ask, { env: env(key) });
    expect(run.code).toBe(0);
    const frames = new Set(run.stdout.match(DOTS));
    expect(frames.size, 'the spinner should turn').toBeGreaterThan(1);
    expect(plain(run.stdout)).toContain('Deciding…');
    expect(run.stdout).toMatch(STYLE);
    const seen = plain(run.stdout);
    // The final frame: the answer, with the spinner gone from it.
    const answer = seen.slice(seen.lastIndexOf(CHOICE.question));
    expect(answer).toMatch(/PostgreSQL\s+█+░+\s+75\.0%\s+← selected/);
    expect(answer).toContain('Signal:  directional');
    expect(answer).toContain('Context: sufficient (90%)');
    expect(answer).not.toMatch(DOTS);
    expect(answer).not.toContain('Deciding…');
  });

  it('NO_COLOR: the same answer without a colour or style code', async () => {
    const { key } = await svc.newKey();
    slowly();
    const run = await decideInPty(ask, { env: env(key, { NO_COLOR: '1' }) });
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

  it('an error on a terminal: the spinner is cleared and the message stays', async () => {
    const { key } = await svc.newKey();
    svc.fake.respond(() => ({ garbage: true, delayMs: 300 }));
    const run = await decideInPty(ask, { env: env(key) });
    expect(run.code).toBe(5);
    const seen = plain(run.stdout);
    expect(seen).toContain('(502 engine_bad_response)');
    // After the error line, no spinner frame is left over.
    expect(seen.slice(seen.indexOf('decide:'))).not.toMatch(DOTS);
  });
});
