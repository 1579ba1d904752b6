import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

/** The routes of the System One format (routes/systemone.ts). */
export const SYSTEM_ONE_PATHS: readonly string[] = ['/v1/systemone', '/v1/models'];

/**
 * Every answer of the System One routes is in that format (contract/systemone-errors.ts)
 * with its request-id header, whatever answers: the route, a refusal before it (the
 * Host check, the key, the body's size), or the server still starting. So the choice is
 * made by path, first thing, rather than by the route, which the others never reach.
 */
export function errorFormatByPath(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (SYSTEM_ONE_PATHS.includes(c.req.path)) c.set('errorFormat', 'systemone');
    await next();
  };
}
