import type { MiddlewareHandler } from 'hono';
import type { Widget } from './verify/verifier.js';

/**
 * The pages' Content-Security-Policy: our own script and style sheet, and the
 * verification widget's origins when one is configured; nothing inline, no other
 * third party, no framing, forms only to ourselves.
 */
export function contentSecurityPolicy(widget: Widget | null): string {
  const w = widget ? ` ${widget.origins.join(' ')}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${w}`,
    `style-src 'self'${w}`,
    "img-src 'self'",
    `connect-src 'self'${w}`,
    ...(widget ? [`frame-src${w}`] : []),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every page: the CSP, no sniffing, no framing, no referrer, never cached (they show a pass). */
export function pageHeaders(widget: Widget | null): MiddlewareHandler {
  const csp = contentSecurityPolicy(widget);
  return async (c, next) => {
    await next();
    c.header('Content-Security-Policy', csp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
  };
}

/** The cookie-authenticated API answers carry a pass's details and, once, a key: never cached. */
export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
};
