import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { AppEnv } from './env.js';

/**
 * DNS-rebinding protection for every route. A page on evil.example whose name
 * resolves to 127.0.0.1 (or to a private address) can make its visitor's browser
 * talk to this server as if it were that page's own origin: same-origin, so the
 * page reads the answers (a new key included). The browser then sends
 * `Host: evil.example:PORT`, which is the one thing the page cannot choose.
 *
 * - A request that arrived on a loopback address must name a loopback host
 *   (localhost, 127.0.0.1, [::1]) or DECIDE_PUBLIC_URL's: no other name is
 *   legitimate there.
 * - Elsewhere, once the operator named the public origin (DECIDE_PUBLIC_URL), a Host
 *   must be that origin's name, an IP address, or a loopback name.
 * - Behind a trusted proxy the proxy owns the public name, so the check is its.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The address of our end of the connection (Node server only; undefined elsewhere). */
function localAddress(c: Context): string | undefined {
  const env = c.env as { server?: unknown; incoming?: { socket?: { localAddress?: string } } } | undefined;
  const bindings = (env?.server ?? env) as typeof env;
  return bindings?.incoming?.socket?.localAddress;
}

function isLoopbackAddress(address: string): boolean {
  return /^(127\.|::ffff:127\.)/.test(address) || address === '::1';
}

function hostname(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

function publicName(publicUrl: string | null): string | null {
  if (!publicUrl) return null;
  try {
    return new URL(publicUrl).hostname;
  } catch {
    return null;
  }
}

/** Why the request's Host must be refused (403), or null when it is fine. */
export function hostRefusal(c: Context, behindProxy: boolean, publicUrl: string | null): string | null {
  if (behindProxy) return null;
  const host = c.req.header('host') ?? '';
  const name = hostname(host);
  const own = publicName(publicUrl);
  const local = localAddress(c);
  if (local !== undefined && isLoopbackAddress(local)) {
    if (name !== null && (LOOPBACK_HOSTS.has(name) || name === own)) return null;
    return `Host ${JSON.stringify(host)} is not allowed: this server listens on the loopback and answers only to localhost, 127.0.0.1 or [::1]${own ? ` or ${own}` : ''}`;
  }
  if (own === null) return null;
  if (name !== null && (name === own || LOOPBACK_HOSTS.has(name) || isIP(name.replace(/^\[|\]$/g, '')) !== 0)) return null;
  return `Host ${JSON.stringify(host)} is not allowed: this server answers to ${own} (DECIDE_PUBLIC_URL) or an IP address`;
}

/** 403 `forbidden_origin` for a Host `hostRefusal` refuses; `/mcp` answers its own refusal in JSON-RPC (mcp/origin.ts). */
export function hostCheck(behindProxy: boolean, publicUrl: string | null, except: string[] = []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!except.includes(c.req.path)) {
      const refused = hostRefusal(c, behindProxy, publicUrl);
      if (refused) throw new ServiceError('forbidden_origin', refused);
    }
    await next();
  };
}
