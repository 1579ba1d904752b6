import fs from 'node:fs';
import { serviceRoot } from '../client/base-url.js';
import { httpUrl, parseSetting } from '../config/parse.js';
import { shownUrl } from '../config/shown-url.js';
import { DEFAULT_URL, envValue } from '../config/variables.js';
import { isWellFormedKey } from '../contract/key.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';

export { DEFAULT_URL };

export interface ConnectionFlags {
  url?: string;
  keyFile?: string;
}

/**
 * `--url`, else DECIDE_URL, else the address `decide serve` listens on by default.
 * Flag and variable are read by the variable's schema (config/parse.ts); a bad one is
 * a usage error (exit 2) naming where it came from, its secrets masked. The value is
 * kept as written: the client takes a last `/v1` off (client/base-url.ts), and drops
 * the query it does not send.
 */
export function resolveUrl(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = envValue(env, 'DECIDE_URL');
  const [value, source] =
    flags.url !== undefined ? [flags.url, '--url'] : fromEnv ? [fromEnv, 'DECIDE_URL'] : [DEFAULT_URL, 'the default URL'];
  try {
    return parseSetting(source, value, httpUrl);
  } catch (error) {
    throw new Failure(`${(error as Error).message} (expected e.g. ${DEFAULT_URL})`, CLIENT_EXIT.usage);
  }
}

/** A URL fit for a message: its password and query values masked (config/shown-url.ts, the one way every command shows a URL). */
export { shownUrl };

/**
 * The service's home page for a base URL as given, a link to open in a browser: its
 * root (a last `/v1` taken off as the client takes it off, client/base-url.ts),
 * without user:password@ or a query, which are no part of the page and may be secrets.
 */
function homePage(url: string): string {
  try {
    const root = serviceRoot(new URL(url));
    return `${root.origin}${root.pathname.replace(/\/+$/, '')}/`;
  } catch {
    return `${shownUrl(url)}/`;
  }
}

/**
 * The API key: from the file `--key-file` names (trimmed), else DECIDE_API_KEY. Never a
 * flag value, which every user of the machine could read in `ps`. Its shape and
 * checksum are checked here, so a mistyped key fails (exit 3) without a round trip.
 * Messages name where the key came from, never the key; without one, they say where
 * to get one: the home page of the service at `url`, or its operator.
 */
export function resolveKey(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env, url: string = DEFAULT_URL): string {
  let key: string;
  let source: string;
  if (flags.keyFile !== undefined) {
    source = `the key file ${flags.keyFile}`;
    try {
      key = fs.readFileSync(flags.keyFile, 'utf8').trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Failure(`cannot read ${source} given by --key-file (${code})`, CLIENT_EXIT.auth);
    }
  } else if (envValue(env, 'DECIDE_API_KEY') !== undefined) {
    source = 'DECIDE_API_KEY';
    key = envValue(env, 'DECIDE_API_KEY') as string;
  } else {
    throw new Failure(
      'no API key: set DECIDE_API_KEY, or pass --key-file PATH (a file holding the key). ' +
        `Get a key in a browser at ${homePage(url)} (the service's home page), or from its operator (\`decide key create\`).`,
      CLIENT_EXIT.auth,
    );
  }
  if (key === '') throw new Failure(`${source} is empty`, CLIENT_EXIT.auth);
  if (!isWellFormedKey(key)) {
    throw new Failure(
      `${source} does not hold a well-formed decide key (dcd_api_ and 49 letters or digits, the last 6 a checksum): ` +
        'check for a typo or a truncated copy',
      CLIENT_EXIT.auth,
    );
  }
  return key;
}
