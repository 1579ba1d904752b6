/**
 * The service's root from a base URL as people write it. The API's paths all start
 * with `/v1/`, and a base URL is often copied with that `/v1` on it (the way
 * OPENAI_BASE_URL is written, and DECIDE_SYSTEMONE_URL is taken); joined as it is, it
 * would ask for `/v1/v1/usage`, a 404 that says nothing of the cause. So a last path
 * segment `v1` (with or without a trailing slash) is taken off. Any other path stays
 * a prefix, for a service mounted under one behind a proxy (`https://host/decide`).
 * The client and the MCP bridge both read their base URL through here.
 */
export function serviceRoot(base: URL): URL {
  const root = new URL(base.href);
  root.pathname = root.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') || '/';
  return root;
}
