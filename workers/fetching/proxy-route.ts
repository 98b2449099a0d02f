import net from 'node:net';
import { parseProxyUrl, premiumProxiesFor, type PremiumProxy, type ProxyEndpoint } from '../../common/proxy-url.js';
import { createGuardedConnect, isUrlAllowedNow, UrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';
import { PREMIUM_PROXY_TIER } from '../../common/tiers.js';
import type { FetchTask } from '../../proto/gen/trawl/v1/work_pb.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from './guarded-socks-proxy.js';
import type { FetchFailure } from './fetch-result.js';
import { openUpstreamTunnel, ProxyTunnelError } from './upstream-tunnel.js';

/**
 * How an attempt's connections leave when it goes through an upstream proxy
 * (advanced.use_proxy, use_own_proxy, tier 3.5): every tier connects to a
 * guarded SOCKS5 proxy of the attempt's own on loopback, which judges each
 * target host with the SSRF guard (every address it resolves to) and only
 * then opens a tunnel to it through the upstream proxy. The caller's own
 * proxy is dialled through the guard as well; the operator's premium
 * proxies are trusted like the rest of the configuration.
 * See docs/decisions/0018-proxies-and-location.md.
 */
export interface UpstreamRoute {
  proxy: ProxyEndpoint;
  /** The caller's proxy: its address must pass the guard. */
  ownedByCaller: boolean;
}

export interface ProxyRouteDeps {
  premium: readonly PremiumProxy[];
  guard: GuardOptions;
  /** The caller's proxy URL parked for a job (RedisKeys.ownProxy). */
  readOwnProxy(jobId: string): Promise<string | null>;
}

/** Rotates through the premium proxies usable for each task, one after another. */
export function createPremiumRotation(): (candidates: readonly PremiumProxy[]) => PremiumProxy {
  let next = 0;
  return (candidates) => candidates[next++ % candidates.length]!;
}

/** A premium proxy (of `country`, when it names one), taken in turn from the candidates. */
export function premiumRoute(
  premium: readonly PremiumProxy[],
  country: string | undefined,
  pick: (candidates: readonly PremiumProxy[]) => PremiumProxy,
): UpstreamRoute {
  const candidates = premiumProxiesFor(premium, country);
  if (candidates.length === 0) {
    throw new AttemptFailure('SERVICE_UNAVAILABLE', country ? `No premium proxy in ${country} is configured` : 'No premium proxy is configured');
  }
  return { proxy: pick(candidates).proxy, ownedByCaller: false };
}

/** The upstream proxy of an attempt, or null when it connects directly. */
export async function routeFor(
  task: FetchTask,
  tier: string,
  jobId: string,
  deps: ProxyRouteDeps & { pick: (candidates: readonly PremiumProxy[]) => PremiumProxy },
): Promise<UpstreamRoute | null> {
  if (task.ownProxy) {
    const raw = await deps.readOwnProxy(jobId);
    if (raw === null) throw new AttemptFailure('INTERNAL_ERROR', 'The proxy URL of this request is no longer available');
    const proxy = parseProxyUrl(raw);
    if (typeof proxy === 'string') throw new AttemptFailure('VALIDATION_ERROR', `advanced.proxy_url ${proxy}`);
    return { proxy, ownedByCaller: true };
  }
  if (!task.premiumProxy && tier !== PREMIUM_PROXY_TIER) return null;
  return premiumRoute(deps.premium, task.locationCountry || undefined, deps.pick);
}

/** Refuses a target host the guard does not allow, by every address it resolves to here. */
async function assertTargetAllowed(host: string, port: number, guard: GuardOptions): Promise<void> {
  const literal = net.isIPv6(host) ? `[${host}]` : host;
  if (!(await isUrlAllowedNow(new URL(`http://${literal}:${port}`), guard))) {
    throw new UrlNotAllowedError(`The host ${host} is not allowed: it is not a public internet address`, host);
  }
}

/**
 * The attempt's own guarded SOCKS5 proxy on loopback, sending through the
 * route's upstream proxy; `onTunnelError` hears why the upstream proxy did not
 * open a tunnel (the client only sees its SOCKS connection fail).
 */
export function startRouteProxy(route: UpstreamRoute, guard: GuardOptions, onTunnelError?: (err: ProxyTunnelError) => void): Promise<GuardedSocksProxy> {
  const guarded = createGuardedConnect(guard);
  const dialProxy = route.ownedByCaller ? guarded : (host: string, port: number) => net.connect({ host, port });
  return startGuardedSocksProxy({
    connect: guarded,
    async open(host, port) {
      await assertTargetAllowed(host, port, guard);
      try {
        return await openUpstreamTunnel(route.proxy, { host, port }, dialProxy);
      } catch (err) {
        if (err instanceof ProxyTunnelError) onTunnelError?.(err);
        throw err;
      }
    },
  });
}

/** Failures a client reports when the proxy, not the target, let it down. */
const PROXY_FAILURE_CODES: ReadonlySet<string> = new Set(['NETWORK_ERROR', 'TIMEOUT']);

/**
 * A fetch that failed because the upstream proxy opened no tunnel says so,
 * rather than blaming the target: the caller's own proxy by its address and
 * what it did, the operator's premium network without naming its proxies.
 */
function blameProxy<T>(result: T, route: UpstreamRoute, tunnelError: ProxyTunnelError | undefined): T {
  if (!tunnelError || typeof result !== 'object' || result === null) return result;
  const failure = result as Partial<FetchFailure>;
  if (failure.kind !== 'failed' || !PROXY_FAILURE_CODES.has(failure.code ?? '')) return result;
  return { ...result, message: route.ownedByCaller ? tunnelError.message : 'The premium proxy network did not open a connection to the target' };
}

/**
 * Runs one fetch on its route: through a guarded proxy of its own started
 * for it (its URL handed to `work`) and closed after, or directly (no URL)
 * when the route is null.
 */
export async function throughRoute<T>(route: UpstreamRoute | null, guard: GuardOptions, work: (proxyUrl: string | undefined) => Promise<T>): Promise<T> {
  if (!route) return work(undefined);
  let tunnelError: ProxyTunnelError | undefined;
  const proxy = await startRouteProxy(route, guard, (err) => (tunnelError ??= err));
  try {
    return blameProxy(await work(proxy.url), route, tunnelError);
  } finally {
    await proxy.close();
  }
}
