import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';
import { hostRefusal } from '../http/host-check.js';

/**
 * DNS-rebinding protection for `/mcp`. A page on evil.example.com whose name
 * resolves to 127.0.0.1 can make the browser post to a local server; the browser
 * then sends `Host: evil.example.com` and `Origin: http://evil.example.com`.
 *
 * - An `Origin`, when present, must be the server's own origin (request-context.ts:
 *   DECIDE_PUBLIC_URL, or scheme://host:port as the request reached it). Non-browser
 *   clients send no Origin.
 * - The Host, as on every route (http/host-check.ts): on the loopback only a
 *   loopback name (or DECIDE_PUBLIC_URL's) is legitimate, and a rebinding page shows
 *   up exactly as another name.
 */

/** Why the request must be refused (403), or null when its Host and Origin are fine. */
export function rebindingRefusal(c: Context<AppEnv>, trustProxy: boolean, publicUrl: string | null = null): string | null {
  const refused = hostRefusal(c, trustProxy, publicUrl);
  if (refused) return refused;
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
