import type { Browser } from 'impit';
import { fetchPage, type FetchConfig } from '../fetching/http-fetcher.js';
import type { PageRequest } from '../fetching/leased-fetch-work.js';
import type { FetchOutcome } from '../fetching/fetch-result.js';
import { createImpitTransport } from './impit-transport.js';

/**
 * Tier 2's fetcher: impit connected to the process's guarded SOCKS proxy at
 * `proxyUrl`, or, for a fetch through an upstream proxy, a client of its own
 * connected to that fetch's guarded proxy (req.proxyUrl, proxy-route.ts).
 * The tier-2 pool and the crawl pool fetch through it.
 */
export function impitPageFetcher(http: Omit<FetchConfig, 'dispatcher' | 'transport'>, browser: Browser, proxyUrl: string): (req: PageRequest) => Promise<FetchOutcome> {
  const shared = { ...http, transport: createImpitTransport({ browser, proxyUrl }) };
  return (req) => fetchPage(req, req.proxyUrl ? { ...http, transport: createImpitTransport({ browser, proxyUrl: req.proxyUrl }) } : shared);
}
