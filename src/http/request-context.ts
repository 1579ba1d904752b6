import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

/**
 * Who is asking and where they think we are, decided once per request for every
 * channel (`/v1`, `/mcp`, the pages), so the limits, the Origin checks and the
 * cookies all read the same answer.
 *
 * - `clientIp`: the socket's address; the first X-Forwarded-For hop only when the
 *   operator says a trusted proxy sets it (otherwise any client could pick its own IP
 *   and dodge the limits).
 * - `origin`: the server's own origin, which a browser's `Origin` must equal. It is
 *   DECIDE_PUBLIC_URL when the operator set one; else what the request says: its
 *   Host, and behind a trusted proxy X-Forwarded-Proto / X-Forwarded-Host. An
 *   attacker's page cannot choose the Host its victim's browser sends to us, so a
 *   comparison with it holds either way.
 */
export interface RequestPolicy {
  trustProxy: boolean;
  publicUrl: string | null;
}

export function requestContext(policy: RequestPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('clientIp', clientIp(c, policy.trustProxy));
    c.set('origin', ownOrigin(c, policy));
    await next();
  };
}

const firstHop = (value: string | undefined) => value?.split(',')[0]?.trim() || undefined;

function clientIp(c: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? firstHop(c.req.header('x-forwarded-for')) : undefined;
  return forwarded ?? getConnInfo(c).remote.address ?? 'unknown';
}

function ownOrigin(c: Context, policy: RequestPolicy): string {
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
