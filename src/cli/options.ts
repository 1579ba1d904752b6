import { Option } from 'commander';
// variables.ts, not engine/local/threads.ts: `--help` loads this module and must load only commander.
import { DEFAULT_DB, envValue, MAX_THREADS } from '../config/variables.js';

/**
 * `--db`, shared by `serve`, `calibrate`, `eval` and the operator commands so they open the same ledger:
 * the flag, else `DECIDE_DB`, else `DECIDE_DATABASE_URL` (a postgres:// URL kept out
 * of `ps` and of `--help`, which names the variable rather than showing it), else
 * `./decide.db`.
 */
export function dbOption(description = 'SQLite file or postgres:// URL of the ledger') {
  const url = envValue(process.env, 'DECIDE_DATABASE_URL');
  return new Option('--db <path>', `${description} (else DECIDE_DATABASE_URL)`)
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
 * `--debias`, shared by `serve` and `eval`; unset, the engine decides (debias.ts
 * `defaultDebias`). Its value, flag or DECIDE_DEBIAS, is read by the variable's
 * schema when the command runs (flag-values.ts), as are every number flag's.
 */
export function debiasOption() {
  return new Option(
    '--debias <mode>',
    'ask in several orders and average: none, reverse or cyclic (default: reverse on the local engine, none on a remote one)',
  ).env('DECIDE_DEBIAS');
}

/** `--model`, shared by `serve` and `eval` so both run the same engine from the same flags. */
export function modelOption() {
  return new Option('--model <path|name>', 'GGUF file for the local engine, or the model name for a remote one').env('DECIDE_MODEL');
}

/**
 * `--threads`, shared by `serve`, `eval` and `calibrate`: llama.cpp threads of the
 * local engine (engine/local/threads.ts). The flag is read by DECIDE_THREADS's
 * schema when the command runs; the variable itself, and a bad one named, where
 * the engine starts.
 */
export function threadsOption() {
  return new Option(
    '--threads <n>',
    `llama.cpp threads of the local engine, 1 to ${MAX_THREADS} (else DECIDE_THREADS; default: see docs/local-engine.md)`,
  );
}
