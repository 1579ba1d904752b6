import type { Command } from 'commander';
import { Failure, failureJson, type ExitScheme } from './exit-codes.js';

/**
 * Where a command ends the process. An action throws a Failure (a sentence and its
 * exit code) wherever it fails; only here is it printed and the process ended, after
 * every store the action opened has been closed on the way up.
 */

/**
 * Runs an action: a Failure becomes its one line on stderr and its exit code; anything
 * else is a bug, reported with its stack and the scheme's `internal` code.
 */
export async function runAction(scheme: ExitScheme, command: Command, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    const failure =
      error instanceof Failure ? error : new Failure(`internal error: ${(error as Error)?.stack ?? String(error)}`, scheme.internal);
    report(command, failure);
    process.exit(failure.exitCode);
  }
}

/**
 * Runs an action on the command's flags, those with a rule first read through their
 * schemas (flag-values.ts, loaded here: zod loads once a command runs, never for
 * `--help`). A bad value fails before the action has done anything.
 */
export function runParsed<F>(scheme: ExitScheme, command: Command, action: (flags: F) => Promise<void>): Promise<void> {
  return runAction(scheme, command, async () => {
    const { parsedOptions } = await import('./flag-values.js');
    await action(parsedOptions<F>(command, scheme));
  });
}

/**
 * Commander's own failures (unknown option, bad value, missing option) are reported
 * as decide's are, and exit the scheme's usage code; --help exits 0.
 */
export function usageExits(command: Command, scheme: ExitScheme): Command {
  command.configureOutput({
    // Commander says "error: …"; one prefix, decide's, for every failure a user meets.
    outputError: (text) => report(command, new Failure(text.replace(/^error: /, '').trimEnd(), scheme.usage)),
  });
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? scheme.ok : scheme.usage));
  for (const sub of command.commands) usageExits(sub, scheme);
  return command;
}

/**
 * A failure's line on stderr, for a person; given `--json`, also the failure as one
 * JSON object on stdout, where the script reads the answer it asked for.
 */
function report(command: Command, failure: Failure): void {
  process.stderr.write(`${onStderr(command, `decide: ${failure.message}`)}\n`);
  if (asksForJson(command) && !failure.answered) process.stdout.write(`${failureJson(failure)}\n`);
}

/**
 * A line for stderr: on a terminal, wrapped at spaces to its width by commander's own
 * wrapping (as help is), where the terminal would break it mid-word; into a pipe or a
 * file, one line, as a script greps it.
 */
function onStderr(command: Command, text: string): string {
  if (!process.stderr.isTTY) return text;
  const helper = command.createHelp();
  helper.prepareContext({ error: true, helpWidth: command.configureOutput().getErrHelpWidth?.() });
  return helper.boxWrap(text, helper.helpWidth ?? 80);
}

/**
 * Whether the command line asked this command for JSON. Its parsed flag says so once
 * commander has read every word; a usage error can stop commander before it reaches a
 * later --json, so the words themselves count too, up to `--` (after which they are
 * the question's).
 */
function asksForJson(command: Command): boolean {
  if (!command.options.some((option) => option.long === '--json')) return false;
  if (command.getOptionValue('json') === true) return true;
  const words = process.argv.slice(2);
  const end = words.indexOf('--');
  return (end === -1 ? words : words.slice(0, end)).includes('--json');
}
