import { InvalidArgumentError, Option } from 'commander';

/**
 * `--db`, shared by `serve` and the operator commands so they open the same ledger:
 * the flag, else `DECIDE_DB`, else `DECIDE_DATABASE_URL` (a postgres:// URL kept out
 * of `ps` and of `--help`, which names the variable rather than showing it), else
 * `./decide.db`.
 */
export function dbOption() {
  const url = process.env.DECIDE_DATABASE_URL?.trim();
  return new Option('--db <path>', 'SQLite file or postgres:// URL of the ledger (else DECIDE_DATABASE_URL)')
    .env('DECIDE_DB')
    .default(url || './decide.db', url ? '$DECIDE_DATABASE_URL' : undefined);
}

export function integer(min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer ≥ ${min}`);
    return n;
  };
}

/** `--model`, shared by `serve` and `eval` so both run the same engine from the same flags. */
export function modelOption() {
  return new Option('--model <path|name>', 'GGUF file for the local engine, or the model name for a remote one').env('DECIDE_MODEL');
}
