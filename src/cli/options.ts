import { InvalidArgumentError, Option } from 'commander';
import { DEBIAS_MODES } from '../decision/debias-modes.js';
// variables.ts, not engine/local/threads.ts: `--help` loads this module and must load only commander.
import { DEFAULT_DB, envValue, MAX_THREADS } from '../config/variables.js';

/**
 * `--db`, shared by `serve` and the operator commands so they open the same ledger:
 * the flag, else `DECIDE_DB`, else `DECIDE_DATABASE_URL` (a postgres:// URL kept out
 * of `ps` and of `--help`, which names the variable rather than showing it), else
 * `./decide.db`.
 */
export function dbOption() {
  const url = envValue(process.env, 'DECIDE_DATABASE_URL');
  return new Option('--db <path>', 'SQLite file or postgres:// URL of the ledger (else DECIDE_DATABASE_URL)')
    .env('DECIDE_DB')
    .default(url || DEFAULT_DB, url ? '$DECIDE_DATABASE_URL' : undefined);
}

/**
 * The most one `pass fund --credits` adds: a billion credits, a billion decisions. Far
 * beyond any real purchase, and it keeps a balance a safe integer for millions of
 * fundings (the balance itself is checked too, before anything is written).
 */
export const MAX_FUNDING = 1_000_000_000;

/**
 * A whole number written in digits only, from `min` to `max`. Number() alone would take
 * `1e3`, `0x10`, ` 7` and `+5`, and round 9007199254740993 to its neighbour; a flag that
 * moves credits should take what it says. Commander prefixes the flag's name.
 */
export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`Give a whole number from ${min} to ${max}, in digits only (no sign, exponent, hex or spaces).`);
    }
    return n;
  };
}

/** `--debias`, shared by `serve` and `eval`; unset, the engine decides (debias.ts `defaultDebias`). */
export function debiasOption() {
  return new Option('--debias <mode>', 'ask in several orders and average: none, reverse or cyclic (default: reverse on the local engine, none on a remote one)')
    .choices(DEBIAS_MODES)
    .env('DECIDE_DEBIAS');
}

/** `--model`, shared by `serve` and `eval` so both run the same engine from the same flags. */
export function modelOption() {
  return new Option('--model <path|name>', 'GGUF file for the local engine, or the model name for a remote one').env('DECIDE_MODEL');
}

/**
 * `--threads`, shared by `serve`, `eval` and `calibrate`: llama.cpp threads of the
 * local engine (engine/local/threads.ts). Only the flag is checked here; the
 * variable is read, and a bad one named, where the engine starts.
 */
export function threadsOption() {
  return new Option('--threads <n>', 'llama.cpp threads of the local engine (else DECIDE_THREADS; default: see the README, Local engine)').argParser(integer(1, MAX_THREADS));
}
