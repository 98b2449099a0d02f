import { createGuardedDispatcher } from '../../common/ssrf-guard.js';
import { MAX_REDIRECTS } from '../fetching/http-fetcher.js';
import { runWorker } from '../runtime/run-worker.js';
import { createMapWork } from './handler.js';

/** One page, robots.txt or sitemap of a map. */
const FETCH_TIMEOUT_MS = 15_000;

await runWorker('map', ({ config }) => ({
  work: createMapWork({
    fetch: {
      guard: config.ssrf,
      maxBytes: config.worker.maxBytes,
      maxRedirects: MAX_REDIRECTS,
      userAgent: config.worker.userAgent,
      dispatcher: createGuardedDispatcher(config.ssrf),
      timeoutMs: FETCH_TIMEOUT_MS,
    },
    userAgent: config.worker.userAgent,
    guard: config.ssrf,
  }),
}));
