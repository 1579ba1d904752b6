import { type BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config/trust-proxy.js';

/*
 * Which client a request comes from, behind the proxies the operator trusts
 * (DECIDE_TRUST_PROXY; config/trust-proxy.ts says how the chain is read), and the
 * key the per-IP limits count it under.
 */

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
  const chain = [
    peer,
    ...forwardedFor
      .split(',')
      .map((hop) => plainAddress(hop.trim()))
      .filter(Boolean)
      .reverse(),
  ];
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
