import dns from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { TrawlError } from './errors.js';

/**
 * The guard every outbound connection made for a user passes through. It
 * refuses every address that is not globally routable unicast, in any
 * notation, and it judges the address a name resolves to at the moment the
 * socket connects, so a name that changes its answer between a check and the
 * connection (DNS rebinding) cannot reach an internal service.
 */
export interface GuardOptions {
  /** The local-development setting: every address is allowed. Off by default. */
  allowPrivate: boolean;
  /** Ranges an operator trusts (e.g. one internal service), allowed although not public. */
  allowCidrs?: string[];
}

export class UrlNotAllowedError extends TrawlError {
  /** The URL, host or address that was refused. */
  readonly target: string;

  constructor(message: string, target: string) {
    super('URL_NOT_ALLOWED', message, { target });
    this.name = 'UrlNotAllowedError';
    this.target = target;
  }
}

export function isUrlNotAllowedError(err: unknown): err is UrlNotAllowedError {
  return err instanceof UrlNotAllowedError;
}

/**
 * Cloud metadata and host-agent endpoints. Most already sit in a blocked
 * range; they are named so that no allow-list range can let them through and
 * so that the one in public address space (Azure's host agent) is refused too.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure host agent (wireserver)
  ipaddr.parse('fd00:ec2::254').toNormalizedString(), // AWS over IPv6
]);

/** Global unicast IPv6 space; everything outside it is special-purpose. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(ip: string): Address | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : null;
}

function isMetadata(addr: Address): boolean {
  return METADATA_ADDRESSES.has(addr.kind() === 'ipv4' ? addr.toString() : addr.toNormalizedString());
}

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, for the forms whose traffic
 * ends up at that IPv4 host: IPv4-mapped and -translated, IPv4-compatible,
 * NAT64 well-known prefix, 6to4 and Teredo (server and client). Null when the
 * address embeds none.
 */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = addr.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0)) return [ipv4FromParts(p[6]!, p[7]!)];
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [ipv4FromParts(p[6]!, p[7]!)];
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [ipv4FromParts(p[6]!, p[7]!)];
  if (p[0] === 0x2002) return [ipv4FromParts(p[1]!, p[2]!)];
  if (p[0] === 0x2001 && p[1] === 0) {
    // Teredo stores the client address with every bit inverted.
    return [ipv4FromParts(p[2]!, p[3]!), ipv4FromParts(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  }
  return null;
}

function isBlockedIPv4(addr: ipaddr.IPv4): boolean {
  return addr.range() !== 'unicast' || isMetadata(addr);
}

function isBlockedParsed(addr: Address): boolean {
  if (addr.kind() === 'ipv4') return isBlockedIPv4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  if (isMetadata(v6)) return true;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.some(isBlockedIPv4);
  return !(v6.match(IPV6_GLOBAL_UNICAST) && v6.range() === 'unicast');
}

/**
 * True for every address that is not globally routable unicast: loopback,
 * private, link-local, CGNAT, unique-local, unspecified, broadcast,
 * multicast, reserved and documentation ranges, cloud metadata endpoints,
 * and IPv6 forms judged by the IPv4 address they embed. Anything that does
 * not parse as an address is blocked.
 */
export function isBlockedAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  return addr === null || isBlockedParsed(addr);
}

function parseAllowCidrs(cidrs: readonly string[]): Array<[Address, number]> {
  return cidrs.map((cidr) => {
    if (!ipaddr.isValidCIDR(cidr)) throw new Error(`The SSRF allow-list entry ${JSON.stringify(cidr)} is not a CIDR range`);
    return ipaddr.parseCIDR(cidr);
  });
}

/**
 * The options turned into one predicate, so a dispatcher parses its
 * allow-list once. Metadata endpoints stay refused even inside an allowed
 * range: trusting an internal service never means trusting the cloud
 * credentials endpoint.
 */
function compileAddressPolicy(opts: GuardOptions): (ip: string) => boolean {
  if (opts.allowPrivate) return () => true;
  const allowList = parseAllowCidrs(opts.allowCidrs ?? []);
  return (ip) => {
    const parsed = parseAddress(ip);
    if (parsed === null) return false;
    // An IPv4-mapped address reaches the same host as its IPv4 form, so the
    // allow-list judges the IPv4 form.
    const addr = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
    if (isMetadata(addr)) return false;
    if (allowList.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits))) return true;
    return !isBlockedParsed(addr);
  };
}

/** Each options object's policy, compiled on first use: the checks run on every fetch and redirect. */
const compiledPolicies = new WeakMap<GuardOptions, (ip: string) => boolean>();

/** Whether a connection to this address may be made under the options. */
export function isAddressAllowed(ip: string, opts: GuardOptions): boolean {
  let policy = compiledPolicies.get(opts);
  if (!policy) {
    policy = compileAddressPolicy(opts);
    compiledPolicies.set(opts, policy);
  }
  return policy(ip);
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Refuses a URL before any connection: a scheme other than http or https, an
 * IP literal that is not allowed, or a name reserved for the local machine.
 * The WHATWG parser has already turned decimal, octal, hex and short IPv4
 * forms into dotted quads. Names are judged again by address at connect time.
 */
export function assertUrlAllowed(url: URL, opts: GuardOptions): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlNotAllowedError(`Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`, url.href);
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (net.isIP(host) !== 0) {
    if (!isAddressAllowed(host, opts)) {
      throw new UrlNotAllowedError(`The address ${host} is not a public internet address`, url.href);
    }
    return;
  }
  if (!opts.allowPrivate && isLocalhostName(host)) {
    throw new UrlNotAllowedError(`The host ${host} names the local machine`, url.href);
  }
}

/**
 * Whether a URL passes the guard now: its URL check and every address its
 * name resolves to. For telling a refused connection from an unreachable
 * host after the fact; connections themselves are judged as they open.
 */
export async function isUrlAllowedNow(url: URL, opts: GuardOptions, resolve: ResolveAll = systemResolve): Promise<boolean> {
  try {
    assertUrlAllowed(url, opts);
  } catch {
    return false;
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (net.isIP(host) !== 0) return true;
  const addresses = await resolve(host).catch(() => []);
  return addresses.every((a) => isAddressAllowed(a.address, opts));
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a name resolves to. */
export type ResolveAll = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedDispatcherDeps {
  /** Name resolution; the system resolver (dns.lookup with all addresses) by default. */
  resolve?: ResolveAll;
  /** Time allowed for a TCP and TLS connection to open; undici's 10 s by default. */
  connectTimeoutMs?: number;
}

const systemResolve: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * A lookup for net/tls.connect that resolves every address of a name and
 * refuses the connection if any of them is not allowed: a name that mixes a
 * public and an internal address is a rebinding attempt, not a choice. The
 * refusal does not say which address the name resolved to.
 */
function guardedLookup(isAllowed: (ip: string) => boolean, resolve: ResolveAll): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !isAllowed(a.address));
        if (refused) {
          // The message names the host the caller sent, never what it resolved to: that would map internal DNS.
          callback(new UrlNotAllowedError(`The host ${hostname} is not allowed: it is not a public internet address`, hostname), '', 0);
          return;
        }
        const usable = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (usable.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '', 0);
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/**
 * Opens a TCP connection for a user under the guard: an IP literal is judged
 * directly, a name through the guarded lookup, so the address checked is the
 * address dialled. What the guarded SOCKS proxy uses for the tiers whose
 * client cannot take our undici dispatcher (the browser, impit).
 */
export function createGuardedConnect(opts: GuardOptions, deps: Pick<GuardedDispatcherDeps, 'resolve'> = {}): (host: string, port: number) => net.Socket {
  const isAllowed = compileAddressPolicy(opts);
  const lookup = guardedLookup(isAllowed, deps.resolve ?? systemResolve);
  return (host, port) => {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    if (net.isIP(bare) !== 0) {
      if (!isAllowed(bare)) {
        const socket = new net.Socket();
        process.nextTick(() => socket.destroy(new UrlNotAllowedError(`The address ${bare} is not a public internet address`, bare)));
        return socket;
      }
      return net.connect({ host: bare, port });
    }
    if (!opts.allowPrivate && isLocalhostName(bare)) {
      const socket = new net.Socket();
      process.nextTick(() => socket.destroy(new UrlNotAllowedError(`The host ${bare} names the local machine`, bare)));
      return socket;
    }
    return net.connect({ host: bare, port, lookup });
  };
}

/**
 * An undici Agent whose connector applies the guard at connect time: an IP
 * literal host is judged directly (Node skips the lookup for those), a name
 * through the guarded lookup. Create one per process and share it.
 */
export function createGuardedDispatcher(opts: GuardOptions, deps: GuardedDispatcherDeps = {}): Agent {
  const isAllowed = compileAddressPolicy(opts);
  const connectBase = buildConnector({
    lookup: guardedLookup(isAllowed, deps.resolve ?? systemResolve),
    ...(deps.connectTimeoutMs === undefined ? {} : { timeout: deps.connectTimeoutMs }),
  });
  const connect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.startsWith('[') ? options.hostname.slice(1, -1) : options.hostname;
    if (net.isIP(host) !== 0 && !isAllowed(host)) {
      callback(new UrlNotAllowedError(`The address ${host} is not a public internet address`, host), null);
      return;
    }
    connectBase(options, callback);
  };
  return new Agent({ connect });
}

/**
 * An https.Agent for clients that take one rather than an undici dispatcher
 * (the AWS SDK): every connection to a name goes through the guarded lookup.
 * For endpoints whose host is a name the service builds (a caller's bucket
 * under the provider's domain), never an IP literal.
 */
export function createGuardedHttpsAgent(opts: GuardOptions, deps: Pick<GuardedDispatcherDeps, 'resolve'> = {}): https.Agent {
  return new https.Agent({ keepAlive: true, lookup: guardedLookup(compileAddressPolicy(opts), deps.resolve ?? systemResolve) });
}
