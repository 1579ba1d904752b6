import type { Env } from './variables.js';

/**
 * The proxy every call decide makes to another server goes through (the engines, the
 * model download, browser verification), as curl and most tools read it:
 * `HTTPS_PROXY` for https://, `HTTP_PROXY` for http:// (and https:// when
 * HTTPS_PROXY is unset), `NO_PROXY` the hosts reached directly; either case, the
 * lower one first. Read here, once, and handed down to net/outbound.ts, which never
 * looks at the environment itself. The URLs are checked where an agent is made
 * (outboundAgent), so a proxy nothing uses stops nothing.
 */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export function proxyFromEnv(env: Env): ProxySettings {
  const read = (name: string) => {
    const value = (env[name.toLowerCase()] ?? env[name])?.trim();
    return value ? value : undefined;
  };
  return { httpProxy: read('HTTP_PROXY'), httpsProxy: read('HTTPS_PROXY'), noProxy: read('NO_PROXY') };
}
