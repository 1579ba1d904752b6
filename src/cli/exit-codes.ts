/** Exit codes a script can branch on (sysexits.h, where one fits). */
export const EXIT = {
  ok: 0,
  /** Bad flags or arguments. */
  usage: 64,
  /** Something named does not exist (a pass, a key). */
  notFound: 66,
  /** The port is taken or the database cannot be opened. */
  unavailable: 69,
  /** Configuration is missing or wrong (no engine configured). */
  config: 78,
} as const;

/** Prints one line to stderr and exits: the CLI's only way to fail. */
export function fail(message: string, code: number): never {
  process.stderr.write(`decide: ${message}\n`);
  process.exit(code);
}
