import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { NO_PROXY, type TrustProxy } from '../config/trust-proxy.js';
import { clientAddress, limitKey } from './client-ip.js';
import type { AppEnv } from './env.js';

/**
 * Who is asking and where they think we are, decided once per request for every
 * channel (`/v1`, `/mcp`, the pages), so the limits, the Origin checks and the
 * cookies all read the same answer.
 *
 * - `clientAddress`: the socket's address, or behind the proxies the operator trusts
 *   the first untrusted X-Forwarded-For hop counted from the right (client-ip.ts:
 *   the left of the header is whatever the client wrote).
 * - `clientIp`: what the per-IP limits count by: that address, an IPv6 one by its
 *   /64 (`ipv6Prefix`), an IPv4-mapped one as IPv4.
 * - `origin`: the server's own origin, which a browser's `Origin` must equal. It is
 *   DECIDE_PUBLIC_URL when the operator set one; else what the request says: its
 *   Host, and behind a trusted proxy X-Forwarded-Proto / X-Forwarded-Host. An
 *   attacker's page cannot choose the Host its victim's browser sends to us, so a
 *   comparison with it holds either way.
 */
export interface RequestPolicy {
  /** `true` is one proxy in front (a hop count of 1). */
  trustProxy: boolean | TrustProxy;
  publicUrl: string | null;
  /** Bits of an IPv6 address that name one client for the limits; 64 by default. */
  ipv6Prefix?: number;
}

export function trustOf(trustProxy: boolean | TrustProxy | undefined): TrustProxy {
  if (trustProxy === undefined || trustProxy === false) return NO_PROXY;
  return trustProxy === true ? { kind: 'hops', hops: 1 } : trustProxy;
}

export function requestContext(policy: RequestPolicy): MiddlewareHandler<AppEnv> {
  const trust = trustOf(policy.trustProxy);
  const prefix = policy.ipv6Prefix ?? 64;
  return async (c, next) => {
    const address = clientAddress(trust, getConnInfo(c).remote.address, c.req.header('x-forwarded-for'));
    c.set('clientAddress', address);
    c.set('clientIp', limitKey(address, prefix));
    c.set('origin', ownOrigin(c, policy.publicUrl, trust.kind !== 'off'));
    await next();
  };
}

const firstHop = (value: string | undefined) => value?.split(',')[0]?.trim() || undefined;

function ownOrigin(c: Context, publicUrl: string | null, behindProxy: boolean): string {
  if (publicUrl) return publicUrl;
  const url = new URL(c.req.url);
  if (!behindProxy) return url.origin;
  const forwarded = firstHop(c.req.header('x-forwarded-proto'))?.toLowerCase();
  const proto = forwarded === 'https' || forwarded === 'http' ? forwarded : url.protocol.slice(0, -1);
  const host = firstHop(c.req.header('x-forwarded-host')) ?? url.host;
  try {
    return new URL(`${proto}://${host}`).origin; // drops a default port, as browsers do in Origin
  } catch {
    return url.origin;
  }
}
