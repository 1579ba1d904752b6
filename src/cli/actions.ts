import type { Command } from 'commander';
import { Failure, type ExitScheme } from './exit-codes.js';

/**
 * Where a command ends the process. An action throws a Failure (a sentence and its
 * exit code) wherever it fails; only here is it printed and the process ended, after
 * every store the action opened has been closed on the way up.
 */

/**
 * Runs an action: a Failure becomes its one line on stderr and its exit code; anything
 * else is a bug, reported with its stack and the scheme's `internal` code.
 */
export async function runAction(scheme: ExitScheme, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (error instanceof Failure) exit(error.message, error.exitCode);
    exit(`internal error: ${(error as Error)?.stack ?? String(error)}`, scheme.internal);
  }
}

/**
 * Runs an action on the command's flags, those with a rule first read through their
 * schemas (flag-values.ts, loaded here: zod loads once a command runs, never for
 * `--help`). A bad value fails before the action has done anything.
 */
export function runParsed<F>(scheme: ExitScheme, command: Command, action: (flags: F) => Promise<void>): Promise<void> {
  return runAction(scheme, async () => {
    const { parsedOptions } = await import('./flag-values.js');
    await action(parsedOptions<F>(command, scheme));
  });
}

/** Commander's own failures (unknown option, bad value, missing option) exit the scheme's usage code; --help exits 0. */
export function usageExits(command: Command, scheme: ExitScheme): Command {
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? scheme.ok : scheme.usage));
  for (const sub of command.commands) usageExits(sub, scheme);
  return command;
}

function exit(message: string, code: number): never {
  process.stderr.write(`decide: ${message}\n`);
  process.exit(code);
}
