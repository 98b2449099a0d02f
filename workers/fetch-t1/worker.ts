import { baseFetchConfig, runFetchTier, undiciPageFetcher } from '../fetching/fetch-tier-worker.js';
import { createGuardedDispatcher } from '../../common/ssrf-guard.js';

/** Tier 1: plain HTTP with undici through the guarded dispatcher. */
await runFetchTier('fetch-t1', { detectShells: true }, ({ config }) => {
  const fetchConfig = { ...baseFetchConfig(config), dispatcher: createGuardedDispatcher(config.ssrf) };
  return { fetch: undiciPageFetcher(fetchConfig) };
});
