import { createGuardedDispatcher } from '../../common/ssrf-guard.js';
import { contentPipelineFromConfig } from '../pipeline/content-pipeline.js';
import { createDomainLease } from '../runtime/domain-lease.js';
import { runWorker } from '../runtime/run-worker.js';
import { createFetchWork } from './handler.js';

/** Redirects followed before a fetch gives up. */
const MAX_REDIRECTS = 10;

await runWorker('fetch-t1', ({ config, redis, keys, workerId }) => {
  const pipeline = contentPipelineFromConfig(config);
  return {
    work: createFetchWork({
      readInput: (key) => redis.get(key),
      lease: createDomainLease(redis, {
        limit: config.worker.domainConcurrency,
        ttlMs: config.worker.domainLeaseTtlMs,
        keyPrefix: keys.domainLeasePrefix,
      }),
      fetchConfig: {
        guard: config.ssrf,
        maxBytes: config.worker.maxBytes,
        maxRedirects: MAX_REDIRECTS,
        userAgent: config.worker.userAgent,
        dispatcher: createGuardedDispatcher(config.ssrf),
      },
      pipeline,
      workerId,
    }),
    close: () => pipeline.close(),
  };
});
