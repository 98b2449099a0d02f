import type { JsonObject } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import { describeProxy, parseProxyUrl, premiumProxiesFor, type PremiumProxy } from '../../common/proxy-url.js';
import { isUrlAllowedNow, UrlNotAllowedError, type GuardOptions, type ResolveAll } from '../../common/ssrf-guard.js';
import { PREMIUM_PROXY_TIER, TIER_POOLS } from '../../common/tiers.js';
import type { ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';

/**
 * The proxy options of a scrape at admission (SPEC 2.5 use_proxy and
 * use_own_proxy, tier 3.5), checked before anything is reserved: a premium
 * proxy asked for where none is configured is refused, and the caller's own
 * proxy must be a public internet address like any target. The caller's
 * proxy URL carries credentials, so it is taken out of the request: it waits
 * for the worker in Redis and is never stored with the job.
 */

/** The country a request's location names, upper case, if any. */
export function locationCountry(request: ScrapeRequest): string | undefined {
  const country = request.location?.['country'];
  return typeof country === 'string' && country !== '' ? country.toUpperCase() : undefined;
}

/**
 * The deployed tiers, with 3.5 when its pool (tier 3's) runs and the premium
 * pool has a proxy for the request (of its location's country, when it names one).
 */
export function deployedTiers(available: readonly string[], premium: readonly PremiumProxy[], country: string | undefined): string[] {
  const stealthDeployed = available.some((t) => TIER_POOLS[t as keyof typeof TIER_POOLS] === TIER_POOLS[PREMIUM_PROXY_TIER] && t !== PREMIUM_PROXY_TIER);
  const withoutPremium = available.filter((t) => t !== PREMIUM_PROXY_TIER);
  return stealthDeployed && premiumProxiesFor(premium, country).length > 0 ? [...withoutPremium, PREMIUM_PROXY_TIER] : withoutPremium;
}

/**
 * advanced.use_proxy of a scrape or a crawl: refused with 400 before anything
 * is reserved when the premium network has no proxy (of `country`, when one is named).
 */
export function assertPremiumProxy(premium: readonly PremiumProxy[], country: string | undefined): void {
  if (premiumProxiesFor(premium, country).length > 0) return;
  const missing = premium.length === 0 ? 'no premium proxy network is configured on this service' : `the premium proxy network has no proxy in ${country}`;
  throw new TrawlError('VALIDATION_ERROR', `advanced.use_proxy cannot be served: ${missing}`, {
    fields: [{ field: 'advanced.use_proxy', message: missing, code: 'unavailable' }],
  });
}

export interface ProxyAdmission {
  /** The request as it is recorded: without proxy_url. */
  request: ScrapeRequest;
  /** The caller's proxy URL, to park for the worker. */
  ownProxyUrl?: string;
}

export async function admitProxyOptions(
  request: ScrapeRequest,
  deps: { premium: readonly PremiumProxy[]; guard: GuardOptions; resolve?: ResolveAll },
): Promise<ProxyAdmission> {
  const advanced = request.advanced ?? {};
  if (advanced['use_proxy'] === true) assertPremiumProxy(deps.premium, locationCountry(request));
  const raw = advanced['proxy_url'];
  if (advanced['use_own_proxy'] !== true || typeof raw !== 'string') return { request };
  const proxy = parseProxyUrl(raw);
  if (typeof proxy === 'string') {
    throw new TrawlError('VALIDATION_ERROR', `advanced.proxy_url ${proxy}`, { fields: [{ field: 'advanced.proxy_url', message: proxy }] });
  }
  const host = proxy.host.includes(':') ? `[${proxy.host}]` : proxy.host;
  if (!(await isUrlAllowedNow(new URL(`http://${host}:${proxy.port}`), deps.guard, deps.resolve))) {
    throw new UrlNotAllowedError(`The proxy ${describeProxy(proxy)} is not allowed: it is not a public internet address`, describeProxy(proxy));
  }
  const { proxy_url: _parked, ...recorded } = advanced;
  return { request: { ...request, advanced: recorded as JsonObject }, ownProxyUrl: raw };
}
