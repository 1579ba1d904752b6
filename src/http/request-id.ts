import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { requestId as honoRequestId } from 'hono/request-id';
import type { AppEnv } from './env.js';

/** The longest id a caller may name its request with. */
export const MOST_REQUEST_ID_CHARS = 128;

/**
 * Every answer names its request: `X-Request-Id`, also written in every log line of
 * the request (access and error) and in error bodies, so a caller reporting a failure
 * can point at the lines that logged it. The System One routes send the same id as
 * `x-typesafe-request-id` too, the header that format's SDKs read (`requestId` on
 * their errors and responses).
 *
 * A caller (or its proxy) may name the request itself with an `X-Request-Id` of its
 * own, so one id follows it through both systems' logs. Hono's middleware takes only a
 * plain token: up to 128 letters, digits, `_`, `-` and `=`. Anything else (spaces,
 * line breaks, quotes, a megabyte) could forge or break a log line and is never
 * echoed: the request gets a fresh `req_<32 hex>` instead, as one that sent none does.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  const take = honoRequestId({ limitLength: MOST_REQUEST_ID_CHARS, generator: () => `req_${randomUUID().replaceAll('-', '')}` });
  return async (c, next) => {
    await take(c, async () => {
      await next();
      // Set again once answered: a route that hands back a Response of its own (/mcp) bypasses the header set before.
      const id = c.get('requestId');
      c.res.headers.set('X-Request-Id', id);
      if (c.get('errorFormat') === 'systemone') c.res.headers.set('x-typesafe-request-id', id);
    });
  };
}
