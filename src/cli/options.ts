import { InvalidArgumentError, Option } from 'commander';

/** `--db`, shared by `serve` and the operator commands so they open the same ledger. */
export function dbOption() {
  return new Option('--db <path>', 'SQLite file (or postgres:// URL) of the ledger')
    .env('DECIDE_DB')
    .default('./decide.db');
}

export function integer(min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer ≥ ${min}`);
    return n;
  };
}
