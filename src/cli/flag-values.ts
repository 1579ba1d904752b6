import type { Command } from 'commander';
import type { z } from 'zod';
import { count, httpUrl, parseSetting, share } from '../config/parse.js';
import { debias, port, threads } from '../config/schemas.js';
import { KeyName } from '../contract/admin.js';
import { VARIABLES, type Variable } from '../config/variables.js';
import { EXIT, Failure, type ExitScheme } from './exit-codes.js';
import { MAX_FUNDING } from './options.js';

/**
 * Options whose values have a rule, read through zod schemas once the command runs.
 * Commander hands every value over as the string it was given (its definitions load
 * no zod, so `--help` stays fast); here each one goes through its schema, the same
 * schema config/schemas.ts gives the variable it stands for, where there is one.
 */

/** The schema of each option, by its name on the flags object; the same name means the same thing in every command. */
const SCHEMAS: Record<string, z.ZodType<unknown, string>> = {
  port, // DECIDE_PORT
  threads, // DECIDE_THREADS, read where the engine starts
  debias, // DECIDE_DEBIAS
  url: httpUrl, // DECIDE_URL
  credits: count(1, MAX_FUNDING),
  limit: count(1),
  concurrency: count(1),
  targetAccuracy: share,
  name: KeyName, // key create --name
};

/**
 * The command's flags, each option with a schema parsed by it. Commander records
 * where a value came from: one given on the command line that the schema refuses is
 * a usage error naming the flag (the scheme's code: 64, or 2 for the client's
 * commands); one taken from the option's variable, a configuration error (78) naming
 * the variable. Defaults are the program's own and pass as they are.
 */
export function parsedOptions<F>(command: Command, scheme: ExitScheme): F {
  const flags: Record<string, unknown> = { ...command.opts() };
  for (const option of command.options) {
    const key = option.attributeName();
    const schema = SCHEMAS[key];
    const raw = flags[key];
    if (!schema || typeof raw !== 'string') continue;
    const source = command.getOptionValueSource(key);
    if (source === 'cli') flags[key] = read(option.long ?? key, raw, schema, scheme.usage);
    else if (source === 'env' && option.envVar) {
      // As config/parse.ts reads variables: trimmed, and blank is unset (the default applies).
      const value = raw.trim();
      const variable = (VARIABLES as Record<string, Variable | undefined>)[option.envVar];
      flags[key] = value === '' ? option.defaultValue : read(option.envVar, value, schema, EXIT.config, variable?.secret);
    }
  }
  return flags as F;
}

function read(name: string, raw: string, schema: z.ZodType<unknown, string>, exitCode: number, secret = false): unknown {
  try {
    return parseSetting(name, raw, schema, secret);
  } catch (error) {
    throw new Failure((error as Error).message, exitCode);
  }
}
