import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';

/**
 * DNS-rebinding protection for `/mcp`. A page on evil.example.com whose name
 * resolves to 127.0.0.1 can make the browser post to a local server; the browser
 * then sends `Host: evil.example.com` and `Origin: http://evil.example.com`.
 *
 * - An `Origin`, when present, must be the server's own origin (request-context.ts:
 *   DECIDE_PUBLIC_URL, or scheme://host:port as the request reached it). Non-browser
 *   clients send no Origin.
 * - A request that arrived on a loopback address must name a loopback host
 *   (localhost, 127.0.0.1, [::1]): on the loopback no other name is legitimate, and
 *   a rebinding page shows up exactly as another name. Behind a trusted proxy the
 *   proxy owns the public name, so this check is left to it.
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

/** Why the request must be refused (403), or null when its Host and Origin are fine. */
export function rebindingRefusal(c: Context<AppEnv>, trustProxy: boolean): string | null {
  const host = c.req.header('host') ?? '';
  const local = localAddress(c);
  if (!trustProxy && local !== undefined && isLoopbackAddress(local)) {
    const name = hostname(host);
    if (name === null || !LOOPBACK_HOSTS.has(name)) {
      return `Host ${JSON.stringify(host)} is not allowed: this server listens on the loopback and answers only to localhost, 127.0.0.1 or [::1]`;
    }
  }
  const origin = c.req.header('origin');
  if (origin === undefined || origin === '') return null;
  let claimed: string;
  try {
    claimed = new URL(origin).origin;
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a valid origin`;
  }
  const own = c.get('origin');
  if (claimed === 'null' || claimed !== own) {
    return `Origin ${JSON.stringify(origin)} is not this server's origin (${own})`;
  }
  return null;
}
