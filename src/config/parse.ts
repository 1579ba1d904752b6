import { z } from 'zod';
import { maskedByLook } from './shown-url.js';
import { envValue, VARIABLES, type Env, type Variable, type VariableName } from './variables.js';

/**
 * The one way to read a setting, and what its schemas are built from; the schema of
 * each variable in ./variables.ts is in ./schemas.ts. A flag that stands for a
 * variable (`--port`, `--threads`, `--debias`) is read through the same schema
 * (cli/flag-values.ts), so one definition says what is valid. A schema takes the
 * value (a variable's trimmed); its issue message completes the sentence
 * "NAME must be …", so every bad value is reported the same way, by name.
 */

/**
 * The variable's parsed value, or undefined when it is unset or blank. A value the
 * schema refuses throws an Error naming the variable and the value, or a secret's
 * length only (the table marks secrets), so a mistyped secret never reaches a log.
 */
export function setting<T>(env: Env, name: VariableName, schema: z.ZodType<T, string>): T | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  const variable: Variable = VARIABLES[name];
  return parseSetting(name, raw, schema, variable.secret);
}

/**
 * `raw` through `schema`, or an Error "NAME must be …; got "raw"" (a secret by its
 * length only; a URL as typed, its password and query values masked, config/shown-url.ts).
 * The one way a bad setting is reported, whether NAME is a variable or the
 * command-line flag that stands for it (cli/flag-values.ts).
 */
export function parseSetting<T>(name: string, raw: string, schema: z.ZodType<T, string>, secret = false): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  // A URL, or what was meant as one (a typo'd scheme, a missing one): as typed, its secrets masked as every URL's are.
  const url = schema === (httpUrl as z.ZodType<unknown, string>) || raw.includes('://');
  const got = secret ? `${raw.length} characters` : `"${url ? maskedByLook(raw) : raw}"`;
  throw new Error(`${name} must be ${result.error.issues[0]?.message ?? 'valid'}; got ${got}`);
}

/** An http:// or https:// URL, as written: the caller decides what to strip or keep. */
export const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'an http(s) URL');

/**
 * A whole number in digits only, from `min` to `max`. Number() alone would take `1e3`,
 * `0x10`, ` 7` and `+5`, and round 9007199254740993 to its neighbour; a setting, or a
 * flag that moves credits, should take what it says.
 */
export function wholeNumber(min: number, max: number, what: string): z.ZodType<number, string> {
  return z
    .string()
    .regex(/^\d+$/, what)
    .transform(Number)
    .refine((n) => n >= min && n <= max, what);
}

/** One of `values`, in any case. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, what: string): z.ZodType<T[number], string> {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(values, { error: what }));
}

/** A count a flag gives (credits, items, decisions at once): `min` to `max`, digits only. */
export function count(min: number, max: number = Number.MAX_SAFE_INTEGER): z.ZodType<number, string> {
  return wholeNumber(min, max, `a whole number from ${min} to ${max}, in digits only (no sign, exponent, hex or spaces)`);
}

/** A share from above 0 to 1, written as a decimal (`0.9`) or a percentage (`90%`). */
export const share = z
  .string()
  .regex(/^(0?\.\d+|1(\.0*)?|\d{1,3}(\.\d+)?%)$/, 'a share above 0 and up to 1, such as 0.9 or 90%')
  .transform((value) => (value.endsWith('%') ? Number(value.slice(0, -1)) / 100 : Number(value)))
  .refine((n) => n > 0 && n <= 1, 'a share above 0 and up to 1, such as 0.9 or 90%');
