import { DecideClient, type RetryEvent } from '../client/client.js';
import { DecideError } from '../client/errors.js';
import { DEFAULT_RETRY } from '../client/retry.js';
import { duration, engineFailureWords } from '../contract/wording.js';
import { CLIENT_EXIT, exitFor, Failure, type FailureDetail } from './exit-codes.js';
import { resolveKey, resolveUrl, shownUrl, type ConnectionFlags } from './config.js';

/** The client a command talks through, and what its messages say about where it points. */
export interface Connection {
  client: DecideClient;
  url: string;
  key: string;
  keySource: string;
}

/** Resolves URL and key (exit 2 / 3 on a bad one) and makes the client. */
export function connect(flags: ConnectionFlags, onRetry?: (event: RetryEvent) => void): Connection {
  const url = resolveUrl(flags);
  const key = resolveKey(flags, process.env, url);
  const keySource = flags.keyFile !== undefined ? `the key file ${flags.keyFile}` : 'DECIDE_API_KEY';
  return { client: new DecideClient({ url, apiKey: key, onRetry }), url, key, keySource };
}

/** "45 s", "12 min", "5 h 3 min": a Retry-After as a person reads it (the pass page says it alike). */
export { duration };

/**
 * "the engine is busy (429 engine_busy); retrying in 5 s (attempt 2 of 3)": `seconds`
 * left of the wait (all of it unless told; 0 once it is over: "retrying now").
 */
export function retryNotice(event: RetryEvent, seconds = Math.max(1, Math.round(event.delayMs / 1000))): string {
  const { error } = event;
  const when = seconds > 0 ? `retrying in ${seconds} s` : 'retrying now';
  return `${error.message} (${error.status} ${error.code}); ${when} (attempt ${event.attempt + 1} of ${DEFAULT_RETRY.retries + 1})`;
}

/** What a command tells its user while it waits: a sentence, or one that counts down the seconds to `until`. */
export interface Notice {
  say(secondsLeft?: number): string;
  /** When the wait ends (ms since the epoch): a live terminal counts down to it. */
  until?: number;
}

/** A retry's wait as a Notice, counted down on a terminal. */
export const retryWait = (event: RetryEvent, now = Date.now()): Notice => ({
  say: (seconds) => retryNotice(event, seconds),
  until: now + event.delayMs,
});

/** A failed call as the CLI reports it: a sentence that says what to do, the exit code, and the error's fields for `--json`. */
export function explain(error: unknown, connection: Pick<Connection, 'url' | 'keySource'>): unknown {
  if (!(error instanceof DecideError)) return error;
  const where = shownUrl(connection.url);
  const code = exitFor(error);
  const { status, retryAfter, requestId } = error;
  const detail: FailureDetail = { code: error.code, status, retryAfter, requestId };
  if (error.code === 'unreachable' || error.code === 'timeout') {
    return new Failure(
      `${error.message}. Is decide serve running at ${where}? Set DECIDE_URL (or --url) to the address it listens on.`,
      code,
      detail,
    );
  }
  if (error.code === 'bad_response') {
    return new Failure(`${error.message}. Is ${where} a decide service? Set DECIDE_URL (or --url) to its address.`, code, detail);
  }
  if (code === CLIENT_EXIT.auth) {
    return new Failure(
      `the service refused the key from ${connection.keySource} (${error.status} ${error.code}): ${error.message}`,
      code,
      detail,
    );
  }
  // A failure on the service's side is the operator's to look into: the id finds its log lines.
  const traced = error.status >= 500 && error.requestId !== undefined ? `; request id ${error.requestId}` : '';
  // The engine's own wording is for the operator's log; the user reads what happened and what to do, as on the pass page.
  const plain = engineFailureWords(error.code, error.retryAfter);
  if (plain) return new Failure(`${plain} (${error.status} ${error.code})${traced}`, code, detail);
  const later = error.retryAfter !== undefined && error.status === 429 ? `; try again in ${duration(error.retryAfter)}` : '';
  return new Failure(`${error.message} (${error.status} ${error.code})${later}${traced}`, code, detail);
}
