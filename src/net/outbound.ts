import { type Agent, EnvHttpProxyAgent } from 'undici';
import type { Env } from '../config/variables.js';

/** The proxy settings as curl and most tools read them: either case, the lower one first. */
function proxySettings(env: Env): { httpProxy?: string; httpsProxy?: string; noProxy?: string } {
  const read = (name: string) => {
    const value = (env[name.toLowerCase()] ?? env[name])?.trim();
    return value ? value : undefined;
  };
  return { httpProxy: read('HTTP_PROXY'), httpsProxy: read('HTTPS_PROXY'), noProxy: read('NO_PROXY') ?? '' };
}

/**
 * The dispatcher of every call decide makes to another server (the engines, the model
 * download, browser verification): undici's EnvHttpProxyAgent, which sends a call
 * through `HTTPS_PROXY` (https://) or `HTTP_PROXY` (http://, and https:// when
 * HTTPS_PROXY is unset), tunnelling with CONNECT, unless `NO_PROXY` names its host;
 * with none set it is a plain keep-alive Agent. Read from `env` (the engine's), not
 * from process.env behind the caller's back. A proxy URL undici cannot use throws
 * naming its variable.
 */
export function outboundAgent(options: Agent.Options = {}, env: Env = process.env): EnvHttpProxyAgent {
  const settings = proxySettings(env);
  for (const [name, value] of [['HTTPS_PROXY', settings.httpsProxy], ['HTTP_PROXY', settings.httpProxy]] as const) {
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:', 'socks5:', 'socks:'].includes(url.protocol)) {
      throw new Error(`${name} must be a proxy URL such as http://proxy.example:3128; got "${withoutPassword(value)}"`);
    }
  }
  // '' rather than undefined: undici would fall back to process.env for an unset one.
  return new EnvHttpProxyAgent({ ...options, httpProxy: settings.httpProxy ?? '', httpsProxy: settings.httpsProxy ?? '', noProxy: settings.noProxy });
}

/**
 * The proxy variables set, as a message can quote them (a password masked), or '':
 * a failed call names the proxy it may have gone through, so "refused" is read right.
 */
export function describeProxies(env: Env = process.env): string {
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
  const parts = [
    httpsProxy && `HTTPS_PROXY=${withoutPassword(httpsProxy)}`,
    httpProxy && `HTTP_PROXY=${withoutPassword(httpProxy)}`,
    (httpsProxy || httpProxy) && noProxy && `NO_PROXY=${noProxy}`,
  ].filter(Boolean);
  return parts.join(', ');
}

function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString().replace(/\/$/, '');
  } catch {
    return value.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  }
}
