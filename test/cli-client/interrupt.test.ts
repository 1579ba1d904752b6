import { describe, expect, it } from 'vitest';
import { CHOICE } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { eventually, gate } from '../support/time.js';
import { decide, decideInPty, useClientFixture } from './helpers.js';
import { screenOf } from './screen.js';

/** Spinner frames of ink-spinner's "dots". */
const DOTS = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/**
 * Ctrl-C while `decide ask` waits for a slow engine: the spinner goes, the user is
 * told the decision may have been charged and which key replays it, and the replay
 * answers without a new charge.
 */
describe('Ctrl-C during a decision', () => {
  const client = useClientFixture();
  const env = (key: string) => ({ DECIDE_URL: client.svc.url, DECIDE_API_KEY: key });
  const args = ['ask', CHOICE.question, '--context', CHOICE.context, '--option', 'PostgreSQL', '--option', 'MongoDB'];
  const freeUsed = async (key: string) => (await client.svc.call('GET', '/v1/usage', { key })).body.freeUsed as number;

  /**
   * The engine holds its answers until `release` opens. Ctrl-C is typed once the engine
   * has the first question in hand, or (`impatient`) on each question and then in a
   * burst, as an impatient person presses it while the command says what happened.
   */
  const slowEngine = (impatient = false) => {
    const release = gate();
    let type: (text: string) => void = () => {};
    const decided = scripted({ PostgreSQL: 0.75, MongoDB: 0.25 }, { Yes: 0.9, No: 0.1 });
    let pressed = 0;
    client.svc.fake.respond((body) => {
      if (pressed++ === 0 || impatient) type('\x03');
      if (impatient && pressed === 1) for (let n = 1; n <= 40; n++) setTimeout(() => type('\x03'), 5 * n);
      return { ...decided(body), until: release.promise };
    });
    return { release, keyboard: (typer: (text: string) => void) => (type = typer) };
  };

  it('on a terminal: the spinner cleared, exit 130, "may have been charged", and the key it names replays the answer without a new charge', async () => {
    const { key } = await client.svc.newKey();
    const { release, keyboard } = slowEngine();
    const run = await decideInPty(args, { env: env(key), columns: 80, keyboard });
    release.open();
    expect(run.code).toBe(130);
    const screen = screenOf(run.stdout, 80);
    // One sentence of stderr, wrapped at spaces to the terminal's 80 columns (a broken
    // word would read back with a space inside it); the Ctrl-C typed may echo beside it.
    const text = screen.join(' ').replaceAll('^C', '').replace(/\s+/g, ' ').trim();
    expect(screen.join('\n')).not.toMatch(DOTS);
    expect(text).not.toContain('Deciding…');
    const named = text.match(
      /^decide: interrupted: the decision may have been charged \(the service finishes what it received\)\. Run the same command with --idempotency-key (\S+): if it was charged, that replays its answer without a new charge\.$/,
    );
    expect(named, text).not.toBeNull();
    const idempotencyKey = named![1];

    // What was said: the service finished the decision it had received, and charged it once.
    await eventually(async () => (await freeUsed(key)) > 0, 'the interrupted decision to be committed');
    expect(await freeUsed(key)).toBe(1);
    const replay = await decide([...args, '--idempotency-key', idempotencyKey], { env: env(key) });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/PostgreSQL\s+█+░+\s+75\.0%\s+← selected/);
    expect(replay.stderr).toContain(`decide: the answer of --idempotency-key ${idempotencyKey}, replayed: not charged again`);
    expect(await freeUsed(key)).toBe(1);
  });

  it('--json: the interruption as one JSON object on stdout, code "interrupted", exit 130', async () => {
    const { key } = await client.svc.newKey();
    const { release, keyboard } = slowEngine(true);
    const run = await decideInPty([...args, '--json', '--idempotency-key', 'ci-run-42'], { env: env(key), keyboard });
    release.open();
    expect(run.code).toBe(130);
    // The terminal may echo the Ctrl-C typed ("^C") on the line ahead of it.
    const line = run.stdout
      .split(/\r?\n/)
      .find((l) => l.includes('{"'))
      ?.replace(/^[^{]*/, '');
    expect(line, run.stdout).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ code: 'interrupted' });
    expect(JSON.parse(line!).error).toContain('--idempotency-key ci-run-42');
  });

  it('a bad --idempotency-key is refused before anything is sent (exit 2, the flag named)', async () => {
    const { key } = await client.svc.newKey();
    const run = await decide([...args, '--idempotency-key', 'clé'], { env: env(key) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--idempotency-key must be 1 to 255 printable ASCII characters');
    expect(await freeUsed(key)).toBe(0);
  });
});
