import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

/**
 * Every answer names its request: `X-Request-Id`, also written in the access line, so
 * a caller reporting a failure can point at the line that logged it. The System One
 * routes send the same id as `x-typesafe-request-id` too, the header that format's
 * SDKs read (`requestId` on their errors and responses). Always made here: an id a
 * client sent would let it write what it likes into the log.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = `req_${randomUUID().replaceAll('-', '')}`;
    c.set('requestId', id);
    await next();
    c.res.headers.set('X-Request-Id', id);
    if (c.get('errorFormat') === 'systemone') c.res.headers.set('x-typesafe-request-id', id);
  };
}
