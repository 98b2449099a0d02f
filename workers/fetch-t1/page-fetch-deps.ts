import { createGuardedDispatcher } from '../fetching/ssrf-guard.js';
import { createDomainLease } from '../runtime/domain-lease.js';
import type { WorkerContext } from '../runtime/run-worker.js';
import type { FetchWorkDeps } from './handler.js';

/** Redirects followed before a fetch gives up. */
const MAX_REDIRECTS = 10;

/**
 * What every pool that fetches pages over plain HTTP needs from its
 * configuration: parked request bodies, the per-domain slots, and the
 * SSRF-guarded fetch settings.
 */
export function pageFetchDeps(ctx: Pick<WorkerContext, 'config' | 'redis' | 'keys' | 'workerId'>): Pick<FetchWorkDeps, 'readInput' | 'sessionCookiesKey' | 'lease' | 'fetchConfig' | 'workerId'> {
  const { config, redis, keys } = ctx;
  return {
    readInput: (key) => redis.get(key),
    sessionCookiesKey: (jobId) => keys.sessionCookies(jobId),
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
    workerId: ctx.workerId,
  };
}
