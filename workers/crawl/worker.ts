import { availableParallelism } from 'node:os';
import { CRAWL_LIMITS } from '../../common/crawl-config.js';
import { CRAWL_POOL } from '../../common/tiers.js';
import { createGuardedDispatcher } from '../../common/ssrf-guard.js';
import { contentPipelineFromConfig } from '../pipeline/content-pipeline.js';
import { createDomainLease } from '../runtime/domain-lease.js';
import { runPoolProcess } from '../runtime/run-worker.js';
import { createCrawlBatchHandler } from './batch-handler.js';
import { createHostPacing } from './host-pacing.js';
import { createRobotsCache } from './robots-cache.js';
import { createSlots } from './slots.js';
import { createTierFetchers } from './tier-fetchers.js';

/** Redirects followed before a fetch gives up. */
const MAX_REDIRECTS = 10;
/** A robots.txt or sitemap fetch of a crawl's seed. */
const SITEMAP_TIMEOUT_MS = 15_000;
/** Batches run at once by one process; their pages share the fetch slots. */
const BATCHES_AT_ONCE = 8;

await runPoolProcess(CRAWL_POOL, ({ config, redis, keys, workerId, js, names }) => {
  const pipeline = contentPipelineFromConfig(config);
  const fetchConfig = {
    guard: config.ssrf,
    maxBytes: config.worker.maxBytes,
    maxRedirects: MAX_REDIRECTS,
    userAgent: config.worker.userAgent,
    dispatcher: createGuardedDispatcher(config.ssrf),
  };
  const fetchers = createTierFetchers({ config, redis, keys, tier1: fetchConfig });
  return {
    concurrency: BATCHES_AT_ONCE,
    handler: createCrawlBatchHandler({
      pages: {
        fetchers,
        robots: createRobotsCache(fetchers, config.worker.userAgent),
        pacing: createHostPacing(redis, keys.crawlHostPace),
        lease: createDomainLease(redis, {
          limit: config.worker.domainConcurrency,
          ttlMs: config.worker.domainLeaseTtlMs,
          keyPrefix: keys.domainLeasePrefix,
          lingerMs: CRAWL_LIMITS.domainSlotLingerMs,
        }),
        pipeline,
        pipelineSlots: createSlots(config.worker.pipelineThreads || availableParallelism()),
        redis,
        keys,
        workerId,
        resultTtlSeconds: config.resultTtlSeconds,
      },
      js,
      names,
      sitemapTimeoutMs: SITEMAP_TIMEOUT_MS,
      userAgent: config.worker.userAgent,
      concurrency: CRAWL_LIMITS.workerConcurrency,
    }),
    async close() {
      await pipeline.close();
      await fetchers.close();
    },
  };
});
