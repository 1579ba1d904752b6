/**
 * The free allowance announced with the IETF httpapi draft's structured headers
 * (draft-ietf-httpapi-ratelimit-headers): a policy `"free"` of q units a day (w
 * seconds), and what remains of it with the seconds until it resets.
 */
export function rateLimitHeaders(freeLimit: number, remaining: number | null, resetSeconds: number) {
  const headers: Record<string, string> = { 'RateLimit-Policy': `"free";q=${freeLimit};w=86400` };
  if (remaining !== null) headers.RateLimit = `"free";r=${remaining};t=${resetSeconds}`;
  return headers;
}
