import type { Browser } from 'impit';
import { baseFetchConfig, runFetchTier } from '../fetching/fetch-tier-worker.js';
import { startGuardedSocksProxy } from '../fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';
import { impitPageFetcher } from './impit-page-fetcher.js';

/** Tier 2: HTTP with a browser's TLS and HTTP/2 fingerprint (impit), every connection through the guarded SOCKS proxy. */
await runFetchTier('fetch-t2', { detectShells: true }, async ({ config }) => {
  const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
  return {
    fetch: impitPageFetcher(baseFetchConfig(config), config.tiers.impitBrowser as Browser, proxy.url),
    close: () => proxy.close(),
  };
});
