import type { MiddlewareHandler } from 'hono';
import { DecideError } from '../contract/index.js';
import type { DecisionService } from '../service/service.js';
import type { AppEnv } from './env.js';

const UNAUTHORIZED = 'the API key is missing, unknown or revoked; send Authorization: Bearer <key>';

/** Bearer key → caller. Missing, malformed, unknown and revoked keys get one identical answer. */
export function requireKey(service: DecisionService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const caller = match ? await service.authenticate(match[1]) : null;
    if (!caller) throw new DecideError('unauthorized', UNAUTHORIZED);
    c.set('caller', caller);
    await next();
  };
}
