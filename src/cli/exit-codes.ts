import type { DecideError } from '../client/errors.js';
import type { HelpBlock } from './help-text.js';
import { MAX_FUNDING } from './options.js';

/**
 * Every exit code of the CLI, by command family, and the help that lists them.
 *
 * - `serve`, the operator commands (`key`, `pass`) and `decide mcp` act on a port, a
 *   database and a model file: they exit with sysexits.h codes (EXIT).
 * - The client commands (`ask`, `stress`, `usage`, `revoke`) act on an HTTP answer: a
 *   small set a CI step can branch on (CLIENT_EXIT), with 1 kept for `--fail-on`.
 * - `eval` and `calibrate` run decisions like a client and start an engine (and open a
 *   ledger) like `serve`: CLIENT_EXIT for the run, EXIT for what they start.
 *
 * A failure travels as a thrown Failure up to the command's action (actions.ts),
 * which prints it and exits: nothing below an action ends the process, so a store
 * opened with withStore is always closed first.
 */

/** `serve`, `key`, `pass`, `mcp` (sysexits.h, where one fits). */
export const EXIT = {
  ok: 0,
  /** Bad flags or arguments (EX_USAGE). */
  usage: 64,
  /** The database file is not a usable ledger: not a SQLite database, or damaged (EX_DATAERR). Restore it. */
  dataErr: 65,
  /** Something named does not exist: a ledger (operator commands never make one unasked), a pass, a key, a model file (EX_NOINPUT). */
  notFound: 66,
  /**
   * The port is taken, or the database is there but cannot be used now: locked by
   * another process past the wait, PostgreSQL unreachable or refusing (EX_UNAVAILABLE).
   * Trying again later may work.
   */
  unavailable: 69,
  /** A bug in the CLI itself (EX_SOFTWARE). */
  internal: 70,
  /** The database file cannot be opened or written: a directory, a missing folder, no permission, disk full (EX_IOERR). */
  ioErr: 74,
  /** Configuration is missing or wrong (no engine configured) (EX_CONFIG). */
  config: 78,
} as const;

/** `ask`, `stress`, `usage`, `revoke`; and the run of `eval` and `calibrate`. */
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
  /** Interrupted (Ctrl-C, SIGINT) while a decision was under way: 128 + 2, as a shell reports it. */
  interrupted: 130,
  /** A bug in the CLI itself (sysexits EX_SOFTWARE), never 1, which --fail-on owns. */
  internal: 70,
} as const;

/** The two schemes: which one a command's usage errors and bugs exit with. */
export type ExitScheme = typeof EXIT | typeof CLIENT_EXIT;

/**
 * What a script branches on, beside the sentence, when a command given `--json`
 * fails: the service's (or the client's) error code and what came with it.
 */
export interface FailureDetail {
  /** The service's error code, or the client's own: `unreachable`, `timeout`, `bad_response`. */
  code?: string;
  /** The HTTP status of the answer; 0 when none came back. */
  status?: number;
  /** The service's Retry-After, in seconds. */
  retryAfter?: number;
  /** The id the service's log lines name. */
  requestId?: string;
}

/** A sentence and its exit code (and what a script reads of it): what every command throws to fail. */
export class Failure extends Error {
  /**
   * Set when the command had already printed its answer on stdout (eval's report, then
   * "every item failed"): under `--json` that answer stays the one JSON document there.
   */
  answered = false;

  constructor(
    message: string,
    readonly exitCode: number,
    readonly detail: FailureDetail = {},
  ) {
    super(message);
    this.name = 'Failure';
  }
}

/**
 * The `code` of a failure that has no code of the service's: the word of its exit
 * code. The two schemes share no code but 0 and 70, which mean the same in both.
 */
const EXIT_WORDS: Record<number, string> = {
  [CLIENT_EXIT.usage]: 'usage',
  [CLIENT_EXIT.auth]: 'auth',
  [CLIENT_EXIT.limit]: 'limit',
  [CLIENT_EXIT.service]: 'service',
  [CLIENT_EXIT.interrupted]: 'interrupted',
  [CLIENT_EXIT.internal]: 'internal',
  [EXIT.usage]: 'usage',
  [EXIT.dataErr]: 'data_error',
  [EXIT.notFound]: 'not_found',
  [EXIT.unavailable]: 'unavailable',
  [EXIT.ioErr]: 'io_error',
  [EXIT.config]: 'config',
};

/**
 * A failure as a command given `--json` prints it on stdout: the sentence, a code, and
 * only the fields known (JSON leaves out the undefined ones).
 * `{"error":"site limit (429 rate_limited); …","code":"rate_limited","status":429,"retryAfter":3600}`
 */
export function failureJson({ message, exitCode, detail }: Failure): string {
  const { code = EXIT_WORDS[exitCode] ?? 'error', status, retryAfter, requestId } = detail;
  return JSON.stringify({ error: message, code, status, retryAfter, requestId });
}

/** The client commands' exit code for a failed call. */
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
      [
        CLIENT_EXIT.interrupted,
        'ask and stress interrupted (Ctrl-C) while deciding: the decision may have been charged; the message names the --idempotency-key that replays it',
      ],
    ],
  },
  'Environment: DECIDE_URL (default http://127.0.0.1:8787) and DECIDE_API_KEY, or --url and ' +
    '--key-file PATH (a file holding the key); a key is never taken as a flag value.',
];

/** The epilog of `decide --help`: both schemes. */
export const EXIT_CODES_HELP: HelpBlock[] = [
  ...CLIENT_EXIT_HELP,
  {
    heading: 'Exit codes of serve, mcp and the operator commands (key, pass, backup):',
    items: [
      [EXIT.ok, 'success'],
      [EXIT.usage, `bad flags or arguments (numbers in digits only; --credits 1 to ${MAX_FUNDING})`],
      [EXIT.dataErr, 'the database file is not a SQLite database, or is damaged: restore it'],
      [
        EXIT.notFound,
        'serve: the model file is missing or cannot be loaded; key, pass, backup: no ledger where --db points (without --create), no such pass or key',
      ],
      [
        EXIT.unavailable,
        'port taken; database locked by another process, PostgreSQL unreachable, or the default model cannot be fetched: try again',
      ],
      [EXIT.internal, 'an internal error of the CLI (a bug)'],
      [EXIT.ioErr, 'the database file cannot be opened: a directory, a missing folder, no permission'],
      [EXIT.config, 'configuration missing or wrong; the local engine without node-llama-cpp'],
    ],
  },
  "Each failure is one line on stderr naming the database (a URL's password masked).",
  'eval and calibrate exit as the client commands for their run, and as serve for the engine and the ledger they start (see decide eval --help).',
];

/** The epilog of `decide eval --help`. */
export const EVAL_EXIT_HELP: HelpBlock[] = [
  {
    heading: 'Exit codes of eval:',
    items: [
      [CLIENT_EXIT.ok, 'the report was printed (failed decisions are counted in it)'],
      [
        CLIENT_EXIT.usage,
        'bad flags, a line of the set that is not an item (line and field named), --out not writable, or spending not confirmed',
      ],
      [CLIENT_EXIT.auth, 'with --url: no key, a malformed key, or the key was refused (401)'],
      [CLIENT_EXIT.limit, 'with --url: the pass ran out or a limit was reached (the run stops)'],
      [CLIENT_EXIT.service, 'every item failed: nothing was measured'],
      [`${EXIT.dataErr}, ${EXIT.unavailable}, ${EXIT.ioErr}`, 'with --db: the ledger cannot be used, as for decide serve'],
      [`${EXIT.notFound}, ${EXIT.unavailable}, ${EXIT.config}`, 'the engine could not start, as for decide serve'],
    ],
  },
];

/** The epilog of `decide calibrate --help`. */
export const CALIBRATE_EXIT_HELP: HelpBlock[] = [
  {
    heading: 'Exit codes of calibrate:',
    items: [
      [CLIENT_EXIT.ok, 'fitted (shown, reset)'],
      [CLIENT_EXIT.usage, 'bad flags, a bad line of the set, or a set too small to fit any temperature'],
      [CLIENT_EXIT.service, 'every reading failed, or too few were left to fit any temperature'],
      [`${EXIT.dataErr}, ${EXIT.unavailable}, ${EXIT.ioErr}`, 'the ledger cannot be used'],
      [`${EXIT.notFound}, ${EXIT.config}`, 'the engine could not start, or its configuration is wrong'],
    ],
  },
];
