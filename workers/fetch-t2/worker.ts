import type { Browser } from 'impit';
import { baseFetchConfig, runFetchTier } from '../fetching/fetch-tier-worker.js';
import { startGuardedSocksProxy } from '../fetching/guarded-socks-proxy.js';
import { fetchPage } from '../fetching/http-fetcher.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';
import { createImpitTransport } from './impit-transport.js';

/** Tier 2: HTTP with a browser's TLS and HTTP/2 fingerprint (impit), every connection through the guarded SOCKS proxy. */
await runFetchTier('fetch-t2', { detectShells: true }, async ({ config }) => {
  const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
  const browser = config.tiers.impitBrowser as Browser;
  const fetchConfig = { ...baseFetchConfig(config), transport: createImpitTransport({ browser, proxyUrl: proxy.url }) };
  return {
    // An attempt through an upstream proxy gets a client of its own, connected to the attempt's guarded proxy.
    fetch: (req) => fetchPage(req, req.proxyUrl ? { ...fetchConfig, transport: createImpitTransport({ browser, proxyUrl: req.proxyUrl }) } : fetchConfig),
    close: () => proxy.close(),
  };
});
