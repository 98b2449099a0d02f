import { fetchPage } from '../fetching/http-fetcher.js';
import { robotsProductToken, RobotsTxt, type RobotsPolicy } from '../discovery/robots-txt.js';
import type { TierFetchers } from './tier-fetchers.js';

/** How long a worker keeps an origin's robots.txt before reading it again. */
const ROBOTS_TTL_MS = 10 * 60_000;
const ROBOTS_TIMEOUT_MS = 15_000;

export interface RobotsCache {
  /** The rules for the service's user agent on the URL's origin, read through a premium proxy when `premiumProxy`. */
  policyFor(url: string, premiumProxy: boolean): Promise<RobotsPolicy>;
}

/**
 * robots.txt per origin, read once per worker process and kept for ten
 * minutes (concurrent asks share one fetch). As RFC 9309 asks: a missing
 * file (4xx) allows everything; a file that cannot be read (5xx, network
 * failure) allows nothing until it is read again. What a use_proxy crawl
 * reads through the premium network is kept apart from what is read directly.
 */
export function createRobotsCache(fetchers: Pick<TierFetchers, 'http'>, userAgent: string): RobotsCache {
  const agent = robotsProductToken(userAgent) || userAgent;
  const cache = new Map<string, { at: number; policy: Promise<RobotsPolicy> }>();
  const read = async (origin: string, premiumProxy: boolean): Promise<RobotsPolicy> => {
    const robotsUrl = `${origin}/robots.txt`;
    const res = await fetchers.http(premiumProxy, (config) => fetchPage({ url: robotsUrl, method: 'GET', timeoutMs: ROBOTS_TIMEOUT_MS }, config));
    const status = res.statusCode ?? 0;
    let txt: RobotsTxt;
    if (res.kind === 'ok' && status >= 200 && status < 300) txt = RobotsTxt.parse(res.body, { robotsUrl });
    else if (status >= 400 && status < 500) txt = RobotsTxt.allowAll();
    else txt = RobotsTxt.disallowAll();
    return txt.forAgent(agent);
  };
  return {
    policyFor(url, premiumProxy) {
      const origin = new URL(url).origin;
      const key = premiumProxy ? `premium ${origin}` : origin;
      const hit = cache.get(key);
      if (hit && Date.now() - hit.at < ROBOTS_TTL_MS) return hit.policy;
      const policy = read(origin, premiumProxy);
      cache.set(key, { at: Date.now(), policy });
      if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
      return policy;
    },
  };
}
