import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const addr = ipaddr.parse(text.trim());
    return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
  } catch {
    return null;
  }
}

function parseRange(entry: string): Range {
  if (entry.includes('/')) return ipaddr.parseCIDR(entry);
  const addr = parseAddress(entry);
  if (!addr) throw new Error(`TRAWL_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

/**
 * The client address of a request. X-Forwarded-For is believed only when the
 * peer is a trusted proxy; then the client is the right-most forwarded
 * address that is not itself a trusted proxy. With no trusted proxies (the
 * default) the peer address is the client, whatever the headers say.
 */
export function clientIpResolver(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  const ranges = trustedProxies.map(parseRange);
  const peer = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  if (ranges.length === 0) return peer;
  const trusted = (text: string) => {
    const addr = parseAddress(text);
    return addr !== null && ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  };
  return (req) => {
    const remote = peer(req);
    const forwarded = req.headers['x-forwarded-for'];
    if (!forwarded || !trusted(remote)) return remote;
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',').map((h) => h.trim()).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!trusted(hops[i]!)) return parseAddress(hops[i]!) ? hops[i]! : remote;
    }
    return hops[0] ?? remote;
  };
}
