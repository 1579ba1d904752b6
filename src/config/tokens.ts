import { readFileSync } from 'node:fs';
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
