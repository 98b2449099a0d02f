import { compilePathGlob, matchablePath } from './path-globs.js';

/**
 * A crawl's configuration as run: the request body of SPEC 2.10 with its
 * defaults applied by the gateway. The control plane stores it on the crawl
 * and hands it to every batch of the crawl pool; both read it through this
 * shape only.
 */
export interface CrawlConfig {
  url: string;
  max_pages: number;
  max_depth: number;
  include_patterns: string[] | null;
  exclude_patterns: string[] | null;
  formats: string[] | null;
  extraction_schema: Record<string, unknown> | null;
  extraction_profile: string | null;
  webhook_url: string | null;
  webhook: { url: string; events?: string[]; secret?: string; headers?: Record<string, string>; metadata?: Record<string, unknown> } | null;
  respect_robots: boolean;
  include_subdomains: boolean;
  sitemap: 'include' | 'skip' | 'only';
  sitemap_path: string | null;
  cache: boolean;
  cache_ttl: number;
  force_refresh: boolean;
  headers: Record<string, string> | null;
  storage: 'redis' | 's3' | 'r2';
  advanced: { render_js?: boolean; screenshot?: boolean; use_proxy?: boolean; wait_for?: string | null; timeout?: number } | null;
  cost_controls: { max_credits?: number; max_tier?: string; force_tier?: string } | null;
  priority: { keywords?: string[]; boost_patterns?: string[]; demote_patterns?: string[] } | null;
  budget: Record<string, number> | null;
  change_tracking: { enabled?: boolean; tracking_id?: string; mode?: 'content' | 'structured'; include_diff?: boolean } | null;
  output: Record<string, unknown> | null;
}

/** SPEC 2.10 and 8.4 bounds of a crawl, and how the frontier is worked. */
export const CRAWL_LIMITS = Object.freeze({
  maxPagesDefault: 50,
  maxPagesMax: 100_000,
  maxDepthDefault: 3,
  maxDepthMax: 50,
  cacheTtlDefault: 900,
  cacheTtlMin: 60,
  cacheTtlMax: 86_400,
  fetchTimeoutDefaultS: 90,
  maxPatterns: 100,
  maxPatternChars: 500,
  maxBudgetPatterns: 100,
  maxKeywords: 50,
  maxResumeUrls: 1_000,
  listLimitDefault: 20,
  listLimitMax: 100,
  resultsLimitDefault: 100,
  resultsLimitMax: 1_000,
  /** Pages in one batch handed to a crawl worker. */
  batchSize: 25,
  /** Batches of one crawl out at once. */
  batchesInFlight: 8,
  /** A claimed batch not reported by then is queued again for another worker. */
  leaseMs: 60_000,
  /** Pages a crawl worker fetches at once, over all its batches. */
  workerConcurrency: 64,
  /** How long a crawl worker keeps a host's released concurrency slot for its next page of that host (DomainLeaseOptions.lingerMs). */
  domainSlotLingerMs: 50,
  /** Retries of a page answered 429 or 503 before it fails. */
  backoffRetries: 3,
  /** Stream (SSE) connection: heartbeat interval and longest connection. */
  heartbeatMs: 15_000,
  streamMaxMs: 30 * 60_000,
  /** How often a stream looks for new events. */
  streamPollMs: 250,
});

/**
 * The `budget` pattern that governs a URL: the longest pattern matching its
 * path, `*` as the catch-all; null when none applies (or there is no budget).
 */
export function budgetMatcher(budget: Record<string, number> | null): (url: string) => string | null {
  const patterns = Object.keys(budget ?? {})
    .filter((p) => p !== '*')
    .sort((a, b) => b.length - a.length)
    .map((pattern) => ({ pattern, matches: compilePathGlob(pattern) }));
  const catchAll = budget !== null && '*' in budget ? '*' : null;
  // Without patterns the answer does not depend on the URL, which then need not be parsed.
  if (patterns.length === 0) return () => catchAll;
  return (url) => {
    const path = matchablePath(url);
    return patterns.find((p) => p.matches(path))?.pattern ?? catchAll;
  };
}

/** Crawl statuses in which the frontier is still being worked. */
export const ACTIVE_CRAWL_STATUSES = ['discovering', 'scraping'] as const;
export const CRAWL_STATUSES = ['discovering', 'scraping', 'completed', 'partial', 'failed', 'cancelled'] as const;
export type CrawlStatusName = (typeof CRAWL_STATUSES)[number];
