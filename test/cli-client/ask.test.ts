import { beforeEach, describe, expect, it } from 'vitest';
import { DecisionResponse } from '../../src/contract/index.js';
import { factsText } from '../fakes/openai-fake.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { isSufficiencyProbe, scripted, tokens } from '../support/scripts.js';
import { decide, ESCAPE, useClientFixture } from './helpers.js';

/** `decide ask|stress --json` and the human output on a pipe, against the real service. */
describe('decide ask / stress against the service', () => {
  const client = useClientFixture();
  beforeEach(() => client.svc.fake.reset());

  const env = (key: string) => ({ DECIDE_URL: client.svc.url, DECIDE_API_KEY: key });
  const options = (...names: string[]) => names.flatMap((name) => ['--option', name]);
  const levels = (...names: string[]) => names.flatMap((name) => ['--level', name]);

  /** Runs a --json decision that must succeed; checks stdout is one JSON body in the contract. */
  async function json(args: string[], key: string, input?: string) {
    const run = await decide([...args, '--json'], { env: env(key), input });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    const body = JSON.parse(run.stdout);
    expect(DecisionResponse.safeParse(body).error).toBeUndefined();
    return body as DecisionResponse;
  }

  it('options make a choice; --json prints exactly the API body', async () => {
    const { key } = await client.svc.newKey();
    client.svc.fake.respond(scripted({ PostgreSQL: 0.8, MongoDB: 0.2 }, { Yes: 0.9, No: 0.1 }));
    const body = await json(['ask', CHOICE.question, '--context', CHOICE.context, ...options(...CHOICE.options)], key);
    expect(body.mode).toBe('choice');
    expect(body.result).toEqual({ selected: 'PostgreSQL', confidence: 0.6, probabilities: { PostgreSQL: 0.8, MongoDB: 0.2 } });
    expect(body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(body.stress).toBeNull();
  });

  it('no options or levels: a yes/no question (noul), the question given as several words', async () => {
    const { key } = await client.svc.newKey();
    const body = await json(['ask', ...NOUL.question.split(' '), '--context', NOUL.context], key);
    expect(body.mode).toBe('noul');
    expect(body.question).toBe(NOUL.question);
    expect(Object.keys(body.result)).toEqual(['yesProbability']);
  });

  it('three levels make a score; the context can come from @file', async () => {
    const { key } = await client.svc.newKey();
    const file = client.tmp.write('facts.txt', SCORE.context + '\n');
    const body = await json(['ask', SCORE.question, '--context', `@${file}`, ...levels(...SCORE.levels)], key);
    expect(body.mode).toBe('score');
    expect(Object.keys((body.result as { probabilities: object }).probabilities)).toEqual([...SCORE.levels]);
  });

  it('--context - reads standard input; --mode forces the mode', async () => {
    const { key } = await client.svc.newKey();
    const body = await json(
      ['ask', CHOICE.question, '--context', '-', '--mode', 'choice', ...options('PostgreSQL', 'MySQL', 'SQLite')],
      key,
      CHOICE.context,
    );
    expect(body.mode).toBe('choice');
    expect(Object.keys((body.result as { probabilities: object }).probabilities)).toEqual(['PostgreSQL', 'MySQL', 'SQLite']);
    const sent = client.svc.fake.requests.at(-1)!.body;
    expect(factsText(sent)).toContain('Nobody on the team has run MongoDB in production.');
  });

  it('stress --json: the stress object, charged 5 credits', async () => {
    const { key } = await client.svc.newKey(6);
    const body = await json(['stress', CHOICE.question, '--context', CHOICE.context, ...options(...CHOICE.options)], key);
    expect(body.stress).not.toBeNull();
    expect(body.stress!.checks[0].kind).toBe('reversed');
    expect(body.access).toEqual({ type: 'pass', passCredits: 1 });
  });

  it('human output on a pipe: bars with percentages, the signal and sufficiency in words, no escape codes', async () => {
    const { key } = await client.svc.newKey();
    client.svc.fake.respond(scripted({ PostgreSQL: 0.75, MongoDB: 0.25 }, { Yes: 0.9, No: 0.1 }));
    const run = await decide(['ask', CHOICE.question, '--context', CHOICE.context, ...options(...CHOICE.options)], { env: env(key) });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toMatch(ESCAPE);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(CHOICE.question);
    expect(lines.find((l) => l.includes('PostgreSQL') && l.includes('█'))).toMatch(/75\.0%\s+← selected$/);
    expect(lines.find((l) => l.includes('MongoDB') && l.includes('█'))).toMatch(/25\.0%$/);
    // The top answer's probability as its bar shows it, the confidence as what it is: no percentage.
    expect(run.stdout).toContain('Selected: PostgreSQL, 75.0% (confidence 0.50: 0 = evenly split, 1 = certain)');
    expect(run.stdout).toContain('Signal:   directional: "PostgreSQL" leads the next answer by 15 points or more');
    expect(run.stdout).toContain('Context:  sufficient (90%)');
    expect(run.stdout).toContain('free decisions left today: 19 · model fake-logprobs-1');
  });

  it('human output of a stress test: its verdict, the checks as a table, the decisive fact marked', async () => {
    const { key } = await client.svc.newKey(5);
    const facts = ['The team knows SQL well.', 'The service needs transactions across several tables.'];
    client.svc.fake.respond((body) => {
      if (isSufficiencyProbe(body)) return { labels: tokens(body, { Yes: 0.67, No: 0.33 }) };
      const pg = factsText(body).includes(facts[1]) ? 0.8 : 0.3;
      return { labels: tokens(body, { PostgreSQL: pg, MongoDB: 1 - pg }) };
    });
    const run = await decide(['stress', CHOICE.question, '--context', facts.join(' '), ...options(...CHOICE.options)], { env: env(key) });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(ESCAPE);
    expect(run.stdout).toContain('Stress test: 2 of 3 checks agree with the answer (agreement 67%)');
    expect(run.stdout).toMatch(/Check\s+Agrees\s+Shift\s+Answer/);
    expect(run.stdout).toMatch(/order reversed\s+yes\s+0\.0%\s+PostgreSQL/);
    expect(run.stdout).toMatch(/» without fact 2: "The service needs transactions\s+no\s+50\.0%\s+MongoDB\n {2}across several tables\."\n/);
    expect(run.stdout).toContain('» Decisive fact 2: "The service needs transactions across several tables."');
    expect(run.stdout).toContain('Without it the answer shifts by 50.0% and flips');
    // The engine's own view of its context (67 %) stands at stress depth too, and the
    // lead of 60 points signals.
    expect(run.stdout).toContain('Signal:   directional: "PostgreSQL" leads the next answer by 15 points or more');
    expect(run.stdout).toContain('Context:  partly sufficient (67%)');
    // One verdict, before the table it sums up: the answer leads, but fact 2 decides it.
    expect(run.stdout).toContain(
      'Context:  partly sufficient (67%)\nVerdict:  fragile: one fact decides it (without fact 2 the answer changes)\n',
    );
    expect(run.stdout).toContain('pass credits left: 0');
  });

  it('a stress test where no fact decides it says so', async () => {
    const { key } = await client.svc.newKey(5);
    client.svc.fake.respond(scripted({ PostgreSQL: 0.7, MongoDB: 0.3 }, { Yes: 0.9, No: 0.1 }));
    const run = await decide(['stress', CHOICE.question, '--context', CHOICE.context, ...options(...CHOICE.options)], { env: env(key) });
    expect(run.code).toBe(0);
    // The sentence may wrap at 80 columns: read it with its lines joined.
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      'No single fact decides it: leaving one out never flips the answer or moves it 10% or more.',
    );
    expect(run.stdout).not.toContain('»');
  });

  it('yes/no and score in words', async () => {
    const { key } = await client.svc.newKey();
    client.svc.fake.respond(scripted({ Yes: 0.3, No: 0.7, low: 0.2, medium: 0.5, high: 0.3 }, { Yes: 0.6, No: 0.4 }));
    const noul = await decide(['ask', NOUL.question, '--context', NOUL.context], { env: env(key) });
    expect(noul.stdout).toMatch(/Yes\s+█+░+\s+30\.0%/);
    expect(noul.stdout).toMatch(/No\s+█+░+\s+70\.0%\s+← leans/);
    expect(noul.stdout).toContain('Probability of yes: 30.0%');
    expect(noul.stdout).toContain('Signal:             no: the probability of yes is 40% or less');
    expect(noul.stdout).toContain('Context:            partly sufficient (60%)');

    const score = await decide(['ask', SCORE.question, '--context', SCORE.context, ...levels(...SCORE.levels)], { env: env(key) });
    expect(score.stdout).toMatch(/medium\s+█+░+\s+50\.0%\s+← likeliest/);
    expect(score.stdout).toContain('Likeliest: medium, 50.0% (confidence 0.25: 0 = evenly split, 1 = certain)');
    expect(score.stdout).toContain('Score:     1.10, the mean level on 0 (low) to 2 (high)');
    expect(score.stdout).toContain('Signal:    directional: "medium" leads');
  });

  it('a score names the level its bar marks likeliest, not the level of its mean', async () => {
    const { key } = await client.svc.newKey();
    // The answer: low 38.4 %, medium 23.5 %, high 38.1 %; the mean 1.00 is medium.
    client.svc.fake.respond(scripted({ low: 0.384, medium: 0.235, high: 0.381 }, { Yes: 0.9, No: 0.1 }));
    const score = await decide(['ask', SCORE.question, '--context', SCORE.context, ...levels(...SCORE.levels)], { env: env(key) });
    expect(score.code).toBe(0);
    expect(score.stdout).toMatch(/low\s+█+░+\s+38\.4%\s+← likeliest/);
    expect(score.stdout).not.toMatch(/(medium|high)\s+█+░+\s+[\d.]+%\s+← likeliest/);
    expect(score.stdout).toContain('Likeliest: low, 38.4% (confidence 0.08: 0 = evenly split, 1 = certain)');
    expect(score.stdout).toContain('Score:     1.00, the mean level on 0 (low) to 2 (high)');
    expect(score.stdout).not.toMatch(/confidence \d+%/);

    const json = await decide(['ask', SCORE.question, '--context', SCORE.context, ...levels(...SCORE.levels), '--json'], {
      env: env(key),
    });
    expect(JSON.parse(json.stdout).result).toMatchObject({ likeliest: 'low', score: 0.997, confidence: 0.076 });
  });

  it('--fail-on turns a yes/no signal into exit 1 for gating, with the JSON still printed', async () => {
    const { key } = await client.svc.newKey();
    const ask = (failOn: string) =>
      decide(['ask', NOUL.question, '--context', NOUL.context, '--fail-on', failOn, '--json'], { env: env(key) });

    client.svc.fake.respond(scripted({ Yes: 0.2, No: 0.8 }, { Yes: 0.9, No: 0.1 }));
    const no = await ask('no');
    expect(no.code).toBe(1);
    expect(JSON.parse(no.stdout).signal).toBe('no');
    expect(no.stderr).toContain('signal is "no" and --fail-on no');

    client.svc.fake.respond(scripted({ Yes: 0.5, No: 0.5 }, { Yes: 0.9, No: 0.1 }));
    expect((await ask('no')).code).toBe(0);
    expect((await ask('unclear')).code).toBe(1);

    client.svc.fake.respond(scripted({ Yes: 0.5, No: 0.5 }, { Yes: 0.2, No: 0.8 }));
    expect((await ask('unclear')).code).toBe(1); // needs-context is not a yes either

    client.svc.fake.respond(scripted({ Yes: 0.9, No: 0.1 }, { Yes: 0.9, No: 0.1 }));
    expect((await ask('unclear')).code).toBe(0);
    expect((await ask('no')).code).toBe(0);
  });
});
