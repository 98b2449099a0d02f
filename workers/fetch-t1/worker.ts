import { createGuardedDispatcher } from '../net/ssrf-guard.js';
import { createDomainLease } from '../runtime/domain-lease.js';
import { runWorker } from '../runtime/run-worker.js';
import { createFetchHandler } from './handler.js';

await runWorker('fetch-t1', ({ config, log, redis, workerId, attempts, pipeline }) =>
  createFetchHandler({
    attempts,
    readInput: (key) => redis.get(key),
    lease: createDomainLease(redis, {
      limit: config.worker.domainConcurrency,
      ttlMs: config.worker.domainLeaseTtlMs,
      keyPrefix: `${config.natsPrefix}domain-lease:`,
    }),
    fetchConfig: {
      guard: config.ssrf,
      maxBytes: config.worker.maxBytes,
      maxRedirects: 10,
      userAgent: config.worker.userAgent,
      dispatcher: createGuardedDispatcher(config.ssrf),
    },
    pipeline: { llm: config.llm },
    pipelinePool: pipeline,
    workerId,
    log,
  }),
);
