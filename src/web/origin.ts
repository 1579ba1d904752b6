import type { Context, MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';

/**
 * The server's own origin, which a browser's `Origin` must equal on the
 * cookie-authenticated routes (the pass cookie is also SameSite=Strict; this check
 * does not rely on the browser honouring that). It is DECIDE_PUBLIC_URL when the
 * operator set one; else what the request says: its Host, and behind a trusted proxy
 * X-Forwarded-Proto / X-Forwarded-Host. An attacker's page cannot choose the Host
 * its victim's browser sends to us, so the comparison holds either way.
 */
export interface OriginPolicy {
  publicUrl: string | null;
  trustProxy: boolean;
}

const firstHop = (value: string | undefined) => value?.split(',')[0]?.trim() || undefined;

export function ownOrigin(c: Context, policy: OriginPolicy): string {
  if (policy.publicUrl) return policy.publicUrl;
  const url = new URL(c.req.url);
  if (!policy.trustProxy) return url.origin;
  const forwarded = firstHop(c.req.header('x-forwarded-proto'))?.toLowerCase();
  const proto = forwarded === 'https' || forwarded === 'http' ? forwarded : url.protocol.slice(0, -1);
  const host = firstHop(c.req.header('x-forwarded-host')) ?? url.host;
  try {
    return new URL(`${proto}://${host}`).origin; // drops a default port, as browsers do in Origin
  } catch {
    return url.origin;
  }
}

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
export function sameOrigin(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    const safe = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (origin === undefined && safe) return next();
    const own = ownOrigin(c, policy);
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
