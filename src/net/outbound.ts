import { type Agent, EnvHttpProxyAgent } from 'undici';
import type { ProxySettings } from '../config/proxy.js';
import { shownUrl } from '../config/shown-url.js';

/**
 * The dispatcher of every call decide makes to another server (the engines, the model
 * download, browser verification): undici's EnvHttpProxyAgent, which sends a call
 * through `HTTPS_PROXY` (https://) or `HTTP_PROXY` (http://, and https:// when
 * HTTPS_PROXY is unset), tunnelling with CONNECT, unless `NO_PROXY` names its host;
 * with none set it is a plain keep-alive Agent. The settings are the ones the edge
 * read (config/proxy.ts), passed explicitly; none given means no proxy. A proxy URL
 * undici cannot use throws naming its variable.
 */
export function outboundAgent(options: Agent.Options = {}, proxy: ProxySettings = {}): EnvHttpProxyAgent {
  for (const [name, value] of [
    ['HTTPS_PROXY', proxy.httpsProxy],
    ['HTTP_PROXY', proxy.httpProxy],
  ] as const) {
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:', 'socks5:', 'socks:'].includes(url.protocol)) {
      throw new Error(`${name} must be a proxy URL such as http://proxy.example:3128; got "${shownUrl(value)}"`);
    }
  }
  // '' rather than undefined: undici would fall back to the process's own environment for an unset one.
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy ?? '',
  });
}

/**
 * The proxies in use, as a message can quote them (a password masked), or '':
 * a failed call names the proxy it may have gone through, so "refused" is read right.
 */
export function describeProxies(proxy: ProxySettings): string {
  const { httpProxy, httpsProxy, noProxy } = proxy;
  const parts = [
    httpsProxy && `HTTPS_PROXY=${shownUrl(httpsProxy)}`,
    httpProxy && `HTTP_PROXY=${shownUrl(httpProxy)}`,
    (httpsProxy || httpProxy) && noProxy && `NO_PROXY=${noProxy}`,
  ].filter(Boolean);
  return parts.join(', ');
}
