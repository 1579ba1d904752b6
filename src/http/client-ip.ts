import { BlockList, isIP } from 'node:net';

/**
 * Which client a request comes from, behind the proxies the operator trusts
 * (DECIDE_TRUST_PROXY), and the key the per-IP limits count it under.
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
    if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32) || (prefix !== undefined && !/^\d+$/.test(prefix))) {
      throw new Error(`DECIDE_TRUST_PROXY: ${JSON.stringify(entry)} is neither an IP address nor a CIDR (e.g. 10.0.0.0/8, fd00::/8); give a hop count or a comma-separated list`);
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { kind: 'list', list, text };
}

/** '::ffff:1.2.3.4' is 1.2.3.4; an address Node cannot read stays as written. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The client's address: `socket` (the peer) when no proxy is trusted, else read from the right of `forwardedFor`. */
export function clientAddress(trust: TrustProxy, socket: string | undefined, forwardedFor: string | undefined): string {
  const peer = plainAddress(socket ?? 'unknown');
  if (trust.kind === 'off' || forwardedFor === undefined) return peer;
  // Nearest first: the peer, then the header's hops from its end.
  const chain = [peer, ...forwardedFor.split(',').map((hop) => plainAddress(hop.trim())).filter(Boolean).reverse()];
  if (trust.kind === 'hops') return chain[Math.min(trust.hops, chain.length - 1)]!;
  let i = 0;
  while (i < chain.length - 1 && trusted(trust.list, chain[i]!)) i++;
  return chain[i]!;
}

/**
 * The key per-IP limits count under: an IPv4 address as it is; an IPv6 address by its
 * network of `prefix` bits (64 by default: one subscriber, one LAN, is handed a whole
 * /64, and picks any address in it at will). Anything else is counted as written.
 */
export function limitKey(address: string, ipv6Prefix: number): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  if (groups === null) return address;
  const bits = Math.max(0, Math.min(128, ipv6Prefix));
  const masked = groups.map((group, i) => {
    const keep = Math.max(0, Math.min(16, bits - 16 * i));
    return keep === 0 ? 0 : group & (0xffff << (16 - keep)) & 0xffff;
  });
  // Written back in the canonical compressed form (RFC 5952) the URL parser gives.
  const host = new URL(`http://[${masked.map((g) => g.toString(16)).join(':')}]`).hostname;
  return `${host.slice(1, -1)}/${bits}`;
}

/** The eight 16-bit groups of an IPv6 address (a zone id dropped), or null. */
function expandIpv6(address: string): number[] | null {
  const bare = address.split('%')[0]!;
  let text = bare;
  // A trailing dotted quad (::ffff:1.2.3.4 and the like) is two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return null;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}
