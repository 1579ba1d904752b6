import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { AppEnv } from '../http/env.js';

export function isHttps(origin: string): boolean {
  return origin.startsWith('https://');
}

function normalised(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

/**
 * 403 `forbidden_origin` unless the request comes from our own pages: a POST or
 * DELETE must carry a matching `Origin` (browsers send it on both); a GET may leave
 * it out, but one that names another origin is refused too.
 */
export function sameOrigin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header('origin');
    const safe = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (origin === undefined && safe) return next();
    const own = c.get('origin');
    if (origin === undefined || normalised(origin) !== own) {
      throw new ServiceError(
        'forbidden_origin',
        origin === undefined
          ? `this route answers only the service's own pages; the request carries no Origin (expected ${own})`
          : `this route answers only the service's own pages; Origin ${JSON.stringify(origin)} is not ${own}`,
      );
    }
    await next();
  };
}
