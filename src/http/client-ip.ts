import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The socket's address; the first X-Forwarded-For hop only when the operator says a
 * trusted proxy sets it (otherwise any client could pick its own IP and dodge limits).
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (first) return first;
  }
  return getConnInfo(c).remote.address ?? 'unknown';
}
