import type { ProxySettings } from '../config/proxy.js';
import { describeProxies } from './outbound.js';

/** Node's and undici's codes for a certificate or TLS handshake that failed. */
const TLS = /^(CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/**
 * Why a call to another server failed, in words an operator can act on, with the
 * code it came from: the name did not resolve (DNS), the connection was refused or
 * timed out, TLS failed, the proxy refused the tunnel, or the connection dropped.
 * undici's `fetch failed` hides all of this in `cause`; this walks the chain. When the
 * call went through a proxy (`proxy`), says which, since its refusal looks like the server's.
 */
export function describeFailure(error: unknown, proxy: ProxySettings = {}): string {
  const chain: Array<Error & { code?: unknown; hostname?: unknown; address?: unknown; port?: unknown }> = [];
  for (let e: unknown = error; e instanceof Error && chain.length < 6; e = e.cause) chain.push(e);
  const through = describeProxies(proxy);
  const via = through ? ` (through ${through})` : '';
  const tunnel = chain.map((e) => /Proxy response \((\d+)\)/.exec(e.message)).find(Boolean);
  if (tunnel) {
    const hint = tunnel[1] === '407' ? ': the proxy wants credentials, put user:password@ in its URL' : '';
    return `the proxy refused the tunnel with HTTP ${tunnel[1]}${hint}${via}`;
  }
  const coded = chain.find((e) => typeof e.code === 'string' && e.code !== '');
  const code = coded ? String(coded.code) : undefined;
  const where =
    coded && typeof coded.address === 'string' ? ` ${coded.address}${typeof coded.port === 'number' ? `:${coded.port}` : ''}` : '';
  const host = coded && typeof coded.hostname === 'string' ? ` ${coded.hostname}` : '';
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name${host} does not resolve (DNS: ${code})${via}`;
    case 'ECONNREFUSED':
      return `the connection was refused (ECONNREFUSED${where})${via}`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `the connection timed out (${code}${where})${via}`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return `the connection was closed by the other side (${code})${via}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to the host (${code}${where})${via}`;
  }
  if (code && TLS.test(code)) {
    return `TLS failed (${code}): a proxy that inspects TLS needs its CA certificate in NODE_EXTRA_CA_CERTS${via}`;
  }
  const last = chain.at(-1);
  return `${last?.message ?? String(error)}${code ? ` (${code})` : ''}${via}`;
}
