import type { Browser } from 'impit';
import { baseFetchConfig, runFetchTier } from '../fetching/fetch-tier-worker.js';
import { startGuardedSocksProxy } from '../fetching/guarded-socks-proxy.js';
import { fetchPage } from '../fetching/http-fetcher.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';
import { createImpitTransport } from './impit-transport.js';

/** Tier 2: HTTP with a browser's TLS and HTTP/2 fingerprint (impit), every connection through the guarded SOCKS proxy. */
await runFetchTier('fetch-t2', { detectShells: true }, async ({ config }) => {
  const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
  const fetchConfig = { ...baseFetchConfig(config), transport: createImpitTransport({ browser: config.tiers.impitBrowser as Browser, proxyUrl: proxy.url }) };
  return { fetch: (req) => fetchPage(req, fetchConfig), close: () => proxy.close() };
});
