import { hash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { AppEnv } from './env.js';

/**
 * A route behind a token of the operator's (the operator API's, or /metrics'): the
 * request must send `Authorization: Bearer <token>`. Both sides are hashed before they
 * are compared with timingSafeEqual, so the time taken says nothing about the token,
 * not even its length. A missing and a wrong token get one identical 401.
 */
export function requireToken(token: string, what: string): MiddlewareHandler<AppEnv> {
  const expected = hash('sha256', token, 'buffer');
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const given = hash('sha256', match?.[1] ?? '', 'buffer');
    if (!match || !timingSafeEqual(given, expected)) {
      throw new ServiceError('unauthorized', `${what} is missing or wrong; send Authorization: Bearer <token>`);
    }
    await next();
  };
}
