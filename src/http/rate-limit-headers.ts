import type { Allowance } from '../service/allowance.js';

/**
 * The free allowance announced with the IETF httpapi draft's structured headers
 * (draft-ietf-httpapi-ratelimit-headers): a policy `"free"` of q units a day (w
 * seconds), and what remains of it with the seconds until it resets.
 */
export function rateLimitHeaders({ limit, remaining, resetSeconds }: Allowance) {
  const headers: Record<string, string> = { 'RateLimit-Policy': `"free";q=${limit};w=86400` };
  if (remaining !== null) headers.RateLimit = `"free";r=${remaining};t=${resetSeconds}`;
  return headers;
}
