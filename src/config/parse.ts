import { z } from 'zod';
import { envValue, MAX_THREADS, VARIABLES, type Env, type Variable, type VariableName } from './variables.js';

/**
 * The zod schemas of the variables in ./variables.ts, and the one way to read them.
 * A schema takes the trimmed value; its issue message completes the sentence
 * "NAME must be …", so every bad value is reported the same way, naming the variable.
 */

/**
 * The variable's parsed value, or undefined when it is unset or blank. A value the
 * schema refuses throws an Error naming the variable and the value, or a secret's
 * length only (the table marks secrets), so a mistyped secret never reaches a log.
 */
export function setting<T>(env: Env, name: VariableName, schema: z.ZodType<T, string>): T | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const variable: Variable = VARIABLES[name];
  const got = variable.secret ? `${raw.length} characters` : `"${raw}"`;
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
 * `0x10` and `+5`; a setting should take what it says.
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

/** setTimeout's ceiling; beyond it Node fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

export const ENGINES = ['systemone', 'openai', 'anthropic', 'local'] as const;
export const engineKind = oneOf(ENGINES, 'one of systemone, openai, anthropic or local');
export const openaiProbabilities = oneOf(['logprobs', 'verbalized'], 'logprobs or verbalized');
export const engineTimeoutMs = wholeNumber(1, MAX_TIMER_MS, 'a positive whole number of milliseconds');
export const expiryMarginMs = wholeNumber(0, MAX_TIMER_MS, 'a whole number of milliseconds, 0 or more');
export const threads = wholeNumber(1, MAX_THREADS, `a whole number of threads from 1 to ${MAX_THREADS}`);

/**
 * A daily limit. Kept as lenient as it has always been (any integer Number() reads,
 * `1e3` included), so no operator's working setting starts failing.
 */
export const dailyLimit = z
  .string()
  .transform(Number)
  .refine((n) => Number.isInteger(n) && n >= 0, 'a whole number ≥ 0 (0 = no limit)');
