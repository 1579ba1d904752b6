import { spawnSync } from 'node:child_process';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsFor } from '../../src/cli/commands.js';
import { assertBuilt } from '../support/cli.js';
import { decide, tempFolder, type TempFolder } from './helpers.js';

/** Whether `shell` is installed here, to run its script; without it only the script's text is checked. */
const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Every command path of the program, from its definitions: "ask", "key", "key create", … */
async function commandPaths(): Promise<string[]> {
  const top = (await commandsFor(undefined)).map(({ command }) => command);
  return top.flatMap((command) => [command.name(), ...command.commands.map((sub) => `${command.name()} ${sub.name()}`)]);
}

describe('decide completion', () => {
  let tmp: TempFolder;
  let bashScript: string;
  beforeAll(async () => {
    assertBuilt();
    tmp = tempFolder();
    const run = await decide(['completion', 'bash']);
    expect(run.code, run.stderr).toBe(0);
    bashScript = tmp.write('decide.bash', run.stdout);
  });
  afterAll(() => tmp?.remove());

  /** What bash offers for the words typed so far, the last one being completed. */
  const offered = (...typed: string[]) => {
    const words = typed.map((word) => `'${word}'`).join(' ');
    const run = spawnSync(
      'bash',
      [
        '-c',
        `source '${bashScript}'; COMP_WORDS=(decide ${words}); COMP_CWORD=${typed.length}; _decide; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.split('\n').filter(Boolean);
  };

  it("bash: a subcommand, a nested one, an option, and an option's choices, as compgen completes them", () => {
    expect(offered('as')).toEqual(['ask']);
    expect(offered('key', 'cr')).toEqual(['create']);
    expect(offered('ask', '--idem')).toEqual(['--idempotency-key']);
    expect(offered('ask', 'Which one?', '--mode', '').sort()).toEqual(['choice', 'noul', 'score']);
    expect(offered('stress', '--fail-on', 'u')).toEqual(['unclear']);
    expect(offered('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    // A flag's free value (a file, text) is left to bash's own file names.
    expect(offered('ask', '--context', '')).toEqual([]);
  });

  it('bash: every command and every option of the program, read from its definitions', async () => {
    const top = (await commandsFor(undefined)).map(({ command }) => command);
    expect(offered('').sort()).toEqual([...top.map((command) => command.name()), 'completion'].sort());
    for (const command of top) {
      for (const sub of command.commands) expect(offered(command.name(), ''), command.name()).toContain(sub.name());
      const leaf = command.commands.length ? command.commands : [command];
      for (const each of leaf) {
        const path = each === command ? [command.name()] : [command.name(), each.name()];
        const flags = offered(...path, '-');
        for (const option of each.options) expect(flags, `${path.join(' ')} ${option.long}`).toContain(option.long);
        expect(flags).toContain('--help');
      }
    }
  });

  it.each(['zsh', 'fish'])('%s: the script names every command and subcommand, and parses where the shell is installed', async (shell) => {
    const run = await decide(['completion', shell]);
    expect(run.code, run.stderr).toBe(0);
    for (const path of await commandPaths()) for (const word of path.split(' ')) expect(run.stdout, path).toContain(word);
    expect(run.stdout).toContain('idempotency-key');
    if (!has(shell)) return;
    const file = tmp.write(`decide.${shell}`, run.stdout);
    const parsed = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
    expect(parsed.status, parsed.stderr).toBe(0);
  });

  it('an unknown shell: exit 64, the choices named', async () => {
    const run = await decide(['completion', 'powershell']);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/decide: .*powershell.*bash, zsh, fish/);
  });
});

describe('examples in --help', () => {
  it('every command and subcommand shows one or two real invocations, within 80 columns', async () => {
    for (const path of [...(await commandPaths()), 'completion']) {
      const run = await decide([...path.split(' '), '--help']);
      expect(run.code, path).toBe(0);
      const lines = run.stdout.split('\n');
      const start = lines.indexOf('Examples:');
      expect(start, `${path}:\n${run.stdout}`).toBeGreaterThan(0);
      const shown = lines.slice(start + 1, lines.indexOf('', start));
      expect(shown.length, path).toBeGreaterThan(0);
      expect(
        shown.some((line) => line.includes('decide ')),
        path,
      ).toBe(true);
      for (const line of lines) expect(stringWidth(line), `${path}: ${line}`).toBeLessThanOrEqual(80);
    }
  });
});
