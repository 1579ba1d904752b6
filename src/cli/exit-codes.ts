/** Exit codes a script can branch on (sysexits.h, where one fits). */
export const EXIT = {
  ok: 0,
  /** Bad flags or arguments (EX_USAGE). */
  usage: 64,
  /** The database file is not a usable ledger: not a SQLite database, or damaged (EX_DATAERR). Restore it. */
  dataErr: 65,
  /** Something named does not exist (a pass, a key) (EX_NOINPUT). */
  notFound: 66,
  /**
   * The port is taken, or the database is there but cannot be used now: locked by
   * another process past the wait, PostgreSQL unreachable or refusing (EX_UNAVAILABLE).
   * Trying again later may work.
   */
  unavailable: 69,
  /** The database file cannot be opened or written: a directory, a missing folder, no permission, disk full (EX_IOERR). */
  ioErr: 74,
  /** Configuration is missing or wrong (no engine configured) (EX_CONFIG). */
  config: 78,
} as const;

/** A sentence and its exit code, thrown where the process cannot exit yet (a store is open). */
export class Failure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'Failure';
  }
}

/** Prints one line to stderr and exits: the CLI's only way to fail. */
export function fail(message: string, code: number): never {
  process.stderr.write(`decide: ${message}\n`);
  process.exit(code);
}
