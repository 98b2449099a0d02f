import type { TrawlConfig } from '../../common/config.js';
import { contentPipelineFromConfig } from '../pipeline/content-pipeline.js';
import { createDomainLease } from '../runtime/domain-lease.js';
import { runWorker, type WorkerContext } from '../runtime/run-worker.js';
import { Socks5ProxyAgent } from 'undici';
import { fetchPage, MAX_REDIRECTS, type FetchConfig } from './http-fetcher.js';
import type { FetchOutcome } from './fetch-result.js';
import { createFetchWork, type FetchWorkDeps, type PageFetcher, type PageRequest } from './leased-fetch-work.js';

/** A fetch tier's own client, made once per process. */
export interface TierClient {
  fetch: PageFetcher;
  close?(): Promise<void>;
  /** Tasks run at once; WORKER_CONCURRENCY by default. */
  concurrency?: number;
  /** Longest one document may take in the pipeline; TRAWL_PIPELINE_BUDGET_MS by default. */
  pipelineBudgetMs?: number;
  /** Reads images (the document pool). */
  ocr?: FetchWorkDeps['ocr'];
  /** What the pool announces with its heartbeats. */
  capabilities?: Record<string, unknown>;
}

/** The fetch settings every HTTP tier starts from. */
export function baseFetchConfig(config: TrawlConfig): Omit<FetchConfig, 'dispatcher' | 'transport'> {
  return { guard: config.ssrf, maxBytes: config.worker.maxBytes, maxRedirects: MAX_REDIRECTS, userAgent: config.worker.userAgent };
}

/**
 * Runs `work` with `config` connecting through the guarded SOCKS5 proxy at
 * `proxyUrl` (an undici agent of its own, destroyed after), or with `config`
 * as it is when there is none.
 */
export async function viaSocksProxy<T>(config: FetchConfig, proxyUrl: string | undefined, work: (config: FetchConfig) => Promise<T>): Promise<T> {
  if (!proxyUrl) return work(config);
  const dispatcher = new Socks5ProxyAgent(proxyUrl);
  try {
    return await work({ ...config, dispatcher });
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * The fetcher of the tiers that use undici (tier 1, the document pool): the
 * process's guarded dispatcher, or for an attempt through an upstream proxy
 * an agent speaking SOCKS5 to the attempt's guarded proxy (proxy-route.ts).
 * The crawl pool's tier 1 fetches through it too.
 */
export function undiciPageFetcher(config: FetchConfig): (req: PageRequest) => Promise<FetchOutcome> {
  return (req) => viaSocksProxy(config, req.proxyUrl, (routed) => fetchPage(req, routed));
}

/**
 * The process of one fetch tier: its client, per-domain leases, the content
 * pipeline and the attempt template. Tiers differ only in how they fetch.
 */
export async function runFetchTier(
  pool: string,
  opts: { detectShells: boolean },
  makeClient: (ctx: WorkerContext) => Promise<TierClient> | TierClient,
): Promise<void> {
  await runWorker(pool, async (ctx) => {
    const { config, redis, keys, workerId } = ctx;
    const client = await makeClient(ctx);
    const pipeline = contentPipelineFromConfig(config, client.pipelineBudgetMs);
    return {
      work: createFetchWork({
        readInput: (key) => redis.get(key),
        sessionCookiesKey: (jobId) => keys.sessionCookies(jobId),
        ...(client.ocr ? { ocr: client.ocr } : {}),
        lease: createDomainLease(redis, {
          limit: config.worker.domainConcurrency,
          ttlMs: config.worker.domainLeaseTtlMs,
          keyPrefix: keys.domainLeasePrefix,
        }),
        fetch: client.fetch,
        proxies: { premium: config.premiumProxies, guard: config.ssrf, readOwnProxy: (jobId) => redis.get(keys.ownProxy(jobId)) },
        pipeline,
        workerId,
        detectShells: opts.detectShells,
      }),
      ...(client.concurrency ? { concurrency: client.concurrency } : {}),
      ...(client.capabilities ? { capabilities: client.capabilities } : {}),
      async close() {
        await pipeline.close();
        await client.close?.();
      },
    };
  });
}
