import { readFileSync, statSync } from 'node:fs';
import { envRaw, envValue, type Env } from './variables.js';

/** The shortest token the server takes: 32 characters of a random one are beyond guessing. */
export const MIN_TOKEN_CHARS = 32;

/**
 * The operator API's token: `DECIDE_ADMIN_TOKEN`, or the contents of the file
 * `DECIDE_ADMIN_TOKEN_FILE` names (a mounted secret; one trailing newline dropped),
 * never both; null when neither is set (the operator API is off). It lives in the
 * process only: the ledger never holds it. A token too short, or a file that cannot
 * be read, throws naming the variable, never the token.
 */
export function adminTokenFromEnv(env: Env): string | null {
  const inline = envRaw(env, 'DECIDE_ADMIN_TOKEN');
  const file = envValue(env, 'DECIDE_ADMIN_TOKEN_FILE');
  if (inline?.trim() && file) throw new Error('set DECIDE_ADMIN_TOKEN or DECIDE_ADMIN_TOKEN_FILE, not both');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `DECIDE_ADMIN_TOKEN_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      );
    }
    return checked('the file DECIDE_ADMIN_TOKEN_FILE names', text.replace(/\r?\n$/, ''));
  }
  return inline?.trim() ? checked('DECIDE_ADMIN_TOKEN', inline) : null;
}

/** `DECIDE_METRICS_TOKEN`, or null: then `GET /metrics` answers anyone. */
export function metricsTokenFromEnv(env: Env): string | null {
  const token = envRaw(env, 'DECIDE_METRICS_TOKEN');
  return token?.trim() ? checked('DECIDE_METRICS_TOKEN', token) : null;
}

function checked(what: string, token: string): string {
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new Error(
      `${what} must be at least ${MIN_TOKEN_CHARS} characters without spaces (e.g. openssl rand -base64 32); got ${token.length} characters`,
    );
  }
  return token;
}

/**
 * The start-up warning for a token file other users of the machine can read (any
 * group or other permission bit): the token opens the whole ledger, so it should be
 * readable by the server's user alone. A warning, not a refusal: some secret mounts
 * cannot be narrowed, and the operator decides.
 */
export function tokenFileWarning(env: Env): string | null {
  const file = envValue(env, 'DECIDE_ADMIN_TOKEN_FILE');
  if (!file) return null;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return null; // adminTokenFromEnv has refused it already
  }
  if ((mode & 0o077) === 0) return null;
  return `DECIDE_ADMIN_TOKEN_FILE names ${file}, which other users of this machine can read (mode ${mode.toString(8)}); make it the server's alone: chmod 600 ${file}`;
}
