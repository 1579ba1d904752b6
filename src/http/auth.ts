import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { DecisionService } from '../service/service.js';
import type { AppEnv } from './env.js';
import type { Caller } from '../contract/caller.js';

export const UNAUTHORIZED = 'the API key is missing, unknown or revoked; send Authorization: Bearer <key>';

/** The caller an `Authorization: Bearer <key>` header stands for, or null. */
export async function bearerCaller(service: DecisionService, header: string | undefined): Promise<Caller | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? service.authenticate(match[1]) : null;
}

/** Bearer key → caller. Missing, malformed, unknown and revoked keys get one identical answer. */
export function requireKey(service: DecisionService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await bearerCaller(service, c.req.header('authorization'));
    if (!caller) throw new ServiceError('unauthorized', UNAUTHORIZED);
    c.set('caller', caller);
    await next();
  };
}
