import { hash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { AppEnv } from './env.js';

/** Wrong or missing tokens a client may send in a minute before it is refused outright. */
export const WRONG_TOKENS_PER_MINUTE = 10;
const WINDOW_MS = 60_000;
/** Clients remembered at most: past it, those whose minute is over are forgotten. */
const MOST_CLIENTS = 10_000;

/**
 * A route behind a token of the operator's (the operator API's, or /metrics'): the
 * request must send `Authorization: Bearer <token>`. Both sides are hashed before they
 * are compared with timingSafeEqual, so the time taken says nothing about the token,
 * not even its length. A missing and a wrong token get one identical 401.
 *
 * A client (by the address the per-IP limits count) that sends more than
 * WRONG_TOKENS_PER_MINUTE wrong ones in a minute is refused with 429 and Retry-After
 * until its minute is over, the right token included: guessing is slowed to ten
 * tries a minute, where before nothing stopped a script trying thousands. A request
 * without a token guesses nothing: it is the 401, always.
 */
export function requireToken(token: string, what: string): MiddlewareHandler<AppEnv> {
  const expected = hash('sha256', token, 'buffer');
  const wrong = new Map<string, { count: number; until: number }>();
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const refused = new ServiceError('unauthorized', `${what} is missing or wrong; send Authorization: Bearer <token>`);
    // No token is no guess: a missing one is always the 401, and counts for nothing.
    if (!match) throw refused;
    const client = c.get('clientIp');
    const at = Date.now();
    const seen = wrong.get(client);
    if (seen && seen.until <= at) wrong.delete(client);
    else if (seen && seen.count >= WRONG_TOKENS_PER_MINUTE) {
      throw new ServiceError(
        'rate_limited',
        `too many wrong tokens from this address; ${what} is not checked until the minute is over`,
        (seen.until - at) / 1000,
      );
    }
    if (!timingSafeEqual(hash('sha256', match[1], 'buffer'), expected)) {
      if (wrong.size >= MOST_CLIENTS) for (const [ip, entry] of wrong) if (entry.until <= at) wrong.delete(ip);
      const entry = wrong.get(client) ?? { count: 0, until: at + WINDOW_MS };
      entry.count++;
      wrong.set(client, entry);
      throw refused;
    }
    await next();
  };
}
