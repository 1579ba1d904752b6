import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { decide, killAll } from './helpers.js';

/**
 * A usage error as a user meets it: one line, in decide's own words, whether decide or
 * commander found it, naming the first thing missing in the order the command is typed.
 */
describe('usage errors', () => {
  beforeAll(assertBuilt);
  afterEach(killAll);

  /** Runs `args` (no service needed: each fails before any call) and checks the exit code and the one line on stderr. */
  async function refused(args: string[], code: number, line: string): Promise<void> {
    const run = await decide(args, { env: { DECIDE_URL: 'http://127.0.0.1:9' } });
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${line}\n`);
  }

  it("commander's errors start with decide: as decide's do, and keep their exit codes", async () => {
    await refused(['ask', NOUL.question, '--context', NOUL.context, '--bogus'], 2, "decide: unknown option '--bogus'");
    await refused(['ask', '--context', NOUL.context], 2, "decide: missing required argument 'question'");
    await refused(['pass', 'fund', '--pass', 'pass_x'], 64, "decide: required option '--credits <n>' not specified");
    await refused(['nonsense'], 64, "decide: unknown command 'nonsense'");
  });

  it('ask and stress name the question first, then --context: the order they are typed in', async () => {
    const noQuestion = "decide: missing required argument 'question'";
    await refused(['ask'], 2, noQuestion);
    await refused(['stress'], 2, noQuestion);
    await refused(['ask', '--option', 'A1', '--option', 'B1'], 2, noQuestion);
    await refused(['ask', NOUL.question], 2, "decide: required option '--context <text|@file|->' not specified");
  });
});
