import { BlockList, isIP } from 'node:net';

/**
 * The proxies the operator trusts in front of the server (DECIDE_TRUST_PROXY), past
 * which http/client-ip.ts reads which client a request comes from.
 *
 * A proxy in front appends the address it received the request from to
 * `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`, AWS ALB, Traefik,
 * Cloudflare): whatever the client wrote there itself stays on the left. So the
 * address is read from the right: the socket's peer, then the list from its end,
 * skipping every hop the operator trusts; the first one not trusted is the client.
 * This is how Express's `trust proxy` and RFC 7239 read the chain.
 *
 * - `off`: the socket's address; the header is ignored.
 * - a hop count n: the n proxies nearest this server are trusted, whatever their
 *   addresses (one nginx in front: 1; Cloudflare, then an ALB: 2).
 * - addresses and CIDRs: a hop is trusted when its address is in the list.
 */
export type TrustProxy = { kind: 'off' } | { kind: 'hops'; hops: number } | { kind: 'list'; list: BlockList; text: string };

/** No proxy is trusted: the socket's peer is the client. */
export const NO_PROXY: TrustProxy = { kind: 'off' };

/** Reads DECIDE_TRUST_PROXY: unset/0/off, a hop count, or a comma-separated list of addresses and CIDRs; throws naming what is wrong. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === '0' || text.toLowerCase() === 'off' || text.toLowerCase() === 'false') return NO_PROXY;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new Error(`DECIDE_TRUST_PROXY must be a hop count from 0 to 32, or proxy addresses/CIDRs; got ${text}`);
    return { kind: 'hops', hops };
  }
  const list = new BlockList();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (
      family === 0 ||
      !Number.isInteger(bits) ||
      bits < 0 ||
      bits > (family === 6 ? 128 : 32) ||
      (prefix !== undefined && !/^\d+$/.test(prefix))
    ) {
      throw new Error(
        `DECIDE_TRUST_PROXY: ${JSON.stringify(entry)} is neither an IP address nor a CIDR (e.g. 10.0.0.0/8, fd00::/8); give a hop count or a comma-separated list`,
      );
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { kind: 'list', list, text };
}
