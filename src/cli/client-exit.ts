import type { DecideError } from '../client/errors.js';
import { EXIT } from './exit-codes.js';
import type { HelpBlock } from './help-text.js';
import { MAX_FUNDING } from './options.js';

/**
 * Exit codes of the client commands (`ask`, `stress`, `usage`, `revoke`), a small set
 * a CI step can branch on. The operator commands and `serve` keep their sysexits codes
 * (exit-codes.ts): they act on a database and a port, not on an HTTP answer.
 */
export const CLIENT_EXIT = {
  /** Decided (or: usage shown, key revoked). */
  ok: 0,
  /** The yes/no answer tripped `--fail-on`. */
  gate: 1,
  /** Bad flags or input (the message names the field); a 400/413/415/422; revoke not confirmed. */
  usage: 2,
  /** No key, a malformed one, or the service refused it (401). */
  auth: 3,
  /** Payment or limit: 402, 429 free_limit_reached / rate_limited. */
  limit: 4,
  /** The engine or the service failed, or could not be reached (429 engine_busy, 5xx, network). */
  service: 5,
  /** A bug in the CLI itself (sysexits EX_SOFTWARE), never 1, which --fail-on owns. */
  internal: 70,
} as const;

/** The exit code for a failed call. */
export function exitFor(error: DecideError): number {
  const { status, code } = error;
  if (status === 0) return CLIENT_EXIT.service;
  if (status === 401 || status === 403) return CLIENT_EXIT.auth;
  if (status === 402) return CLIENT_EXIT.limit;
  if (status === 429) return code === 'engine_busy' ? CLIENT_EXIT.service : CLIENT_EXIT.limit;
  if ([400, 413, 415, 422].includes(status)) return CLIENT_EXIT.usage;
  // 404/405 (the URL is not a decide service), 409, 5xx, and bodies outside the contract.
  return CLIENT_EXIT.service;
}

/** The epilog of each client command's help. */
export const CLIENT_EXIT_HELP: HelpBlock[] = [
  {
    heading: 'Exit codes of ask, stress, usage and revoke:',
    items: [
      [CLIENT_EXIT.ok, 'decided (usage shown, key revoked)'],
      [CLIENT_EXIT.gate, 'the yes/no answer tripped --fail-on'],
      [CLIENT_EXIT.usage, 'usage error or invalid input, the message names the field (400, 413, 415, 422); revoke not confirmed'],
      [CLIENT_EXIT.auth, 'no key, a malformed key, or the key was refused (401)'],
      [CLIENT_EXIT.limit, 'payment or limit: 402 pass_required / insufficient_credits, 429 free_limit_reached / rate_limited'],
      [CLIENT_EXIT.service, 'engine or service failure: 429 engine_busy, 5xx, not a decide service, unreachable'],
      [CLIENT_EXIT.internal, 'an internal error of the CLI (a bug)'],
    ],
  },
  'Environment: DECIDE_URL (default http://127.0.0.1:8787) and DECIDE_API_KEY, or --url and ' +
    '--key-file PATH (a file holding the key); a key is never taken as a flag value.',
];

/** The epilog of `decide --help`: both sets of exit codes. */
export const EXIT_CODES_HELP: HelpBlock[] = [
  ...CLIENT_EXIT_HELP,
  {
    heading: 'Exit codes of serve and the operator commands (key, pass):',
    items: [
      [EXIT.ok, 'success'],
      [EXIT.usage, `bad flags or arguments (numbers in digits only; --credits 1 to ${MAX_FUNDING})`],
      [EXIT.dataErr, 'the database file is not a SQLite database, or is damaged: restore it'],
      [EXIT.notFound, 'serve: the model file is missing or cannot be loaded; key, pass: no such pass'],
      [EXIT.unavailable, 'port taken; database locked by another process, PostgreSQL unreachable, or the default model cannot be fetched: try again'],
      [EXIT.ioErr, 'the database file cannot be opened: a directory, a missing folder, no permission'],
      [EXIT.config, 'configuration missing or wrong; the local engine without node-llama-cpp'],
    ],
  },
  "Each failure is one line on stderr naming the database (a URL's password masked).",
];
