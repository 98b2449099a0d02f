import type { Browser } from 'impit';
import type { Redis } from 'ioredis';
import type { TrawlConfig } from '../../common/config.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';
import { SLOW_TIER, tierRank } from '../../common/tiers.js';
import type { BrowserOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import { impitPageFetcher } from '../fetch-t2/impit-page-fetcher.js';
import { plainProfile, stealthProfile, type BrowserProfile } from '../fetching/browser-profile.js';
import { createBrowserLoader, type BrowserLoader } from '../fetching/browser-loader.js';
import type { FetchOutcome } from '../fetching/fetch-result.js';
import { undiciPageFetcher, viaSocksProxy } from '../fetching/fetch-tier-worker.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../fetching/guarded-socks-proxy.js';
import type { FetchConfig } from '../fetching/http-fetcher.js';
import type { PageRequest } from '../fetching/leased-fetch-work.js';
import { createPremiumRotation, premiumRoute, throughRoute } from '../fetching/proxy-route.js';
import { createSlots, type Slots } from './slots.js';

/** One crawl page fetch at some tier. */
export interface CrawlFetch {
  url: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** advanced.wait_for and screenshot, for the browser tiers. */
  browser?: BrowserOptions;
  /** advanced.use_proxy: the fetch leaves through a premium proxy (decision 0018), whatever its tier. */
  premiumProxy?: boolean;
  /** The crawl's account (PageRequest.owner). */
  owner?: string;
}

/** The crawl pool's clients of every tier it runs (CRAWL_FETCH_TIERS). */
export interface TierFetchers {
  /**
   * Runs `work` once the tier has room: a browser tier's pages share the
   * process's page slots (TRAWL_BROWSER_CONCURRENCY). Answers null, without
   * running it, when the batch's time ran out during the wait, or too little
   * of it is left for a page load (BROWSER_PAGE_MIN_MS).
   */
  withRoom<T>(tier: string, batch: { signal: AbortSignal; deadlineMs: number }, work: () => Promise<T>): Promise<T | null>;
  fetch(tier: string, req: CrawlFetch): Promise<FetchOutcome>;
  /**
   * Runs `work` with the plain HTTP client of tier 1, through a premium proxy
   * when `premiumProxy` (robots.txt and sitemaps of a use_proxy crawl).
   */
  http<T>(premiumProxy: boolean, work: (config: FetchConfig) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The least of its batch's time a browser page load starts with; a page that
 * gets a slot later is queued again for another batch rather than cut short.
 */
const BROWSER_PAGE_MIN_MS = 10_000;

/** True for the tiers that load pages in Chromium. */
export function isBrowserTier(tier: string): boolean {
  return tierRank(tier) >= tierRank(SLOW_TIER);
}

/**
 * Tier 1 through `tier1` (the shared guarded dispatcher); tiers 2 to 4 made
 * on first use, so a crawl that stays at tier 1 starts no proxy and no
 * Chromium: one guarded SOCKS proxy for impit (tier 2) and Chromium, which
 * connect only through it (decision 0013), and one Chromium per browser
 * profile (stealth for tier 3, plain for tier 4). A fetch through the premium
 * network (use_proxy) runs on a route of its own (proxy-route.ts) whatever
 * its tier, as a scrape attempt does (decision 0022).
 */
export function createTierFetchers(opts: { config: TrawlConfig; redis: Redis; keys: RedisKeys; tier1: FetchConfig }): TierFetchers {
  const { config } = opts;
  const { dispatcher: _shared, ...http } = opts.tier1;
  const tier1 = undiciPageFetcher(opts.tier1);
  let proxy: Promise<GuardedSocksProxy> | null = null;
  const proxyUrl = async () => {
    proxy ??= startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) }).catch((err: unknown) => {
      proxy = null;
      throw err;
    });
    return (await proxy).url;
  };
  let tier2: Promise<(req: PageRequest) => Promise<FetchOutcome>> | null = null;
  const tier2Fetcher = () =>
    (tier2 ??= proxyUrl().then(
      (url) => impitPageFetcher(http, config.tiers.impitBrowser as Browser, url),
      (err: unknown) => {
        tier2 = null;
        throw err;
      },
    ));
  const loaders = new Map<string, Promise<BrowserLoader>>();
  const profiles: Record<string, () => BrowserProfile> = { '3': stealthProfile, '4': () => plainProfile(config.worker.userAgent) };
  const loaderFor = (tier: string) => {
    let loader = loaders.get(tier);
    if (!loader) {
      const profile = profiles[tier];
      if (!profile) throw new Error(`The crawl pool does not run tier ${tier}`);
      loader = proxyUrl().then((url) => createBrowserLoader({ config, redis: opts.redis, keys: opts.keys, profile: profile(), proxyUrl: url, warmPages: tier === '3' }));
      // A proxy that could not start is tried again by the next page.
      loader.catch(() => loaders.delete(tier));
      loaders.set(tier, loader);
    }
    return loader;
  };
  const browserSlots: Slots = createSlots(config.tiers.browserConcurrency);
  const pickPremium = createPremiumRotation();
  // As a scrape's attempt: each fetch through the premium network gets a guarded proxy of its own.
  const routeOf = (premiumProxy: boolean) => (premiumProxy ? premiumRoute(config.premiumProxies, undefined, pickPremium) : null);

  return {
    async withRoom(tier, batch, work) {
      if (!isBrowserTier(tier)) return work();
      return browserSlots.run(async () => (batch.signal.aborted || batch.deadlineMs - Date.now() < BROWSER_PAGE_MIN_MS ? null : work()));
    },

    async fetch(tier, req) {
      return throughRoute(routeOf(req.premiumProxy === true), config.ssrf, async (routeUrl) => {
        const page: PageRequest = {
          url: req.url,
          method: 'GET',
          body: undefined,
          contentType: '',
          timeoutMs: req.timeoutMs,
          signal: req.signal,
          cookies: {},
          acceptMimes: [],
          headers: req.headers ?? {},
          followRedirects: true,
          ...(routeUrl ? { proxyUrl: routeUrl } : {}),
          ...(req.owner ? { owner: req.owner } : {}),
        };
        if (tier === '1') return tier1(page);
        if (tier === '2') return (await tier2Fetcher())(page);
        return (await loaderFor(tier)).load(page, req.browser);
      });
    },

    http(premiumProxy, work) {
      return throughRoute(routeOf(premiumProxy), config.ssrf, (routeUrl) => viaSocksProxy(opts.tier1, routeUrl, work));
    },

    async close() {
      await Promise.all([...loaders.values()].map((l) => l.then((loader) => loader.close()).catch(() => undefined)));
      await proxy?.then((p) => p.close()).catch(() => undefined);
    },
  };
}
