import { createHash } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import { CRAWL_LIMITS, type CrawlConfig } from '../../common/crawl-config.js';
import { publicFailure } from '../../common/errors.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { CAPTCHA_CLASSIFICATION } from '../../common/tier-escalation.js';
import { CRAWL_TIER } from '../../common/tiers.js';
import { CrawlPageOutcomeSchema, type CrawlPageOutcome, type CrawlPageTask } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { BrowserOptionsSchema, PipelineOptionsSchema, type BrowserOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import type { FetchedPage, FetchOutcome } from '../fetching/fetch-result.js';
import { pipelineInput, type ContentPipeline } from '../pipeline/content-pipeline.js';
import type { DomainLease } from '../runtime/domain-lease.js';
import type { HostPacing } from './host-pacing.js';
import { frontierLinks, type CrawlRules } from './link-frontier.js';
import type { LinkTable } from './link-table.js';
import type { PendingResults } from './pending-results.js';
import { readCachedPage, writeCachedPage } from './page-cache.js';
import type { RobotsCache } from './robots-cache.js';
import type { Slots } from './slots.js';
import type { TierFetchers } from './tier-fetchers.js';
import { fetchThroughTiers } from './tiered-fetch.js';

export interface PageCrawlDeps {
  fetchers: TierFetchers;
  robots: RobotsCache;
  pacing: HostPacing;
  lease: DomainLease;
  pipeline: ContentPipeline;
  /**
   * One per pipeline thread: a document goes to the pipeline only when a
   * thread is free, so its time budget is spent processing, not queueing.
   */
  pipelineSlots: Slots;
  redis: Redis;
  keys: RedisKeys;
  workerId: string;
  resultTtlSeconds: number;
}

/** What a crawl's batch knows while it runs. */
export interface CrawlScope {
  crawlId: string;
  accountId: string;
  config: CrawlConfig;
  rules: CrawlRules;
  deadlineMs: number;
  signal: AbortSignal;
  /** The crawl's tier plan (CrawlBatchTask.tiers): where a page starts and how far it may escalate. */
  tiers: readonly string[];
  /** The batch report's links: each page's found links are named by their positions in it. */
  links: LinkTable;
  /** The pages' stored results, written together before the report goes out. */
  results: PendingResults;
}

/** Formats of a crawl page when the request names none. */
const DEFAULT_FORMATS = ['markdown'];
/** First pause after a 429 or 503, doubled on each retry. */
const BACKOFF_BASE_MS = 1_000;
const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** A digest of a page URL, naming its stored result and cache entry. */
export function pageDigest(url: string): string {
  return createHash('sha256').update(url).digest('base64url').slice(0, 32);
}

function failed(url: string, code: string, message: string, statusCode = 0, tier: string = CRAWL_TIER): CrawlPageOutcome {
  return create(CrawlPageOutcomeSchema, { url, ok: false, errorCode: code, errorMessage: message, statusCode, tier });
}

/**
 * The cache entry of a page, shared by the crawls that would fetch it the
 * same way: a crawl that may use other tiers than tier 1 keeps its own, so a
 * render_js crawl never reads a tier-1 shell; so does one through the premium
 * proxy network; and one that sends headers (which may carry credentials)
 * keeps its own for its account and those headers only, as a scrape does.
 */
function cacheDigest(url: string, scope: CrawlScope): string {
  const { tiers, config } = scope;
  const variant: string[] = [];
  if (!(tiers.length === 0 || (tiers.length === 1 && tiers[0] === CRAWL_TIER))) variant.push(tiers.join(','));
  if (config.advanced?.use_proxy) variant.push('premium-proxy');
  if (config.headers && Object.keys(config.headers).length > 0) {
    const headers = Object.entries(config.headers).map(([name, value]) => [name.toLowerCase(), value]).sort();
    variant.push(`account ${scope.accountId} headers ${JSON.stringify(headers)}`);
  }
  return pageDigest(variant.length === 0 ? url : `${variant.join(' ')} ${url}`);
}

/** What the browser tiers are asked for: advanced.wait_for and advanced.screenshot. */
function browserOptions(config: CrawlConfig): BrowserOptions {
  return create(BrowserOptionsSchema, { waitFor: config.advanced?.wait_for ?? '', screenshot: config.advanced?.screenshot === true });
}

/**
 * Fetches a page politely: after robots.txt allows it, within the host's
 * pace (Crawl-delay, pauses after 429 and 503) and holding a slot of the
 * host's concurrency lease; a 429 or 503 answer pauses the host for every
 * worker and is retried with a doubling pause, unless it is a captcha page.
 */
async function politeFetch(page: CrawlPageTask, scope: CrawlScope, deps: PageCrawlDeps, delayMs: number, tier: string): Promise<FetchOutcome> {
  const host = new URL(page.url).hostname;
  const timeoutMs = (scope.config.advanced?.timeout ?? CRAWL_LIMITS.fetchTimeoutDefaultS) * 1000;
  let outcome: FetchOutcome | undefined;
  for (let attempt = 0; ; attempt++) {
    if (!(await deps.pacing.wait(host, delayMs, scope.signal))) return { kind: 'failed', code: 'TIMEOUT', message: 'The crawl batch ran out of time', escalate: false };
    const left = scope.deadlineMs - Date.now();
    const lease = await deps.lease.acquireWithWait(host, `${deps.workerId}:${page.url}`, { waitMs: Math.max(0, left), signal: scope.signal });
    if (!lease) return { kind: 'failed', code: 'TIMEOUT', message: `Every concurrency slot for ${host} stayed busy`, escalate: false };
    try {
      outcome = await deps.fetchers.fetch(tier, {
        url: page.url,
        ...(scope.config.headers ? { headers: scope.config.headers } : {}),
        timeoutMs: Math.max(1, Math.min(timeoutMs, scope.deadlineMs - Date.now())),
        signal: scope.signal,
        browser: browserOptions(scope.config),
        premiumProxy: scope.config.advanced?.use_proxy === true,
        owner: scope.accountId,
      });
    } finally {
      void lease.release().catch(() => undefined);
    }
    const status = outcome.statusCode ?? 0;
    // A captcha served with 429 or 503 is no pause to wait out: it escalates as any captcha does.
    const captcha = outcome.kind === 'failed' && outcome.classification === CAPTCHA_CLASSIFICATION;
    if (!RETRY_STATUSES.has(status) || captcha || attempt >= CRAWL_LIMITS.backoffRetries) return outcome;
    await deps.pacing.pause(host, BACKOFF_BASE_MS * 2 ** attempt);
  }
}

/**
 * One page of a crawl: robots.txt, the cache or a polite fetch through the
 * crawl's tiers, the links that join the frontier, the content pipeline, and
 * the result stored in Redis. Never throws: every failure is the page's
 * outcome. Null when the page could not get a browser before the batch ran
 * out of time: it is left out of the report and queued again.
 */
export async function crawlPage(page: CrawlPageTask, scope: CrawlScope, deps: PageCrawlDeps): Promise<CrawlPageOutcome | null> {
  const { config } = scope;
  const started = Date.now();
  try {
    let delayMs = 0;
    if (config.respect_robots) {
      const policy = await deps.robots.policyFor(page.url, config.advanced?.use_proxy === true);
      if (!policy.isAllowed(page.url)) return create(CrawlPageOutcomeSchema, { url: page.url, disallowed: true });
      delayMs = (policy.crawlDelay ?? 0) * 1000;
    }
    const digest = pageDigest(page.url);
    const cacheKey = deps.keys.crawlCache(cacheDigest(page.url, scope));
    let fetched: FetchedPage | null = config.cache && !config.force_refresh ? await readCachedPage(deps.redis, cacheKey) : null;
    const cached = fetched !== null;
    let tier = CRAWL_TIER as string;
    if (!fetched) {
      // The gateway fills in render_js false whenever `advanced` is sent, so false cannot tell that the caller
      // turned rendering off: it is not passed on, and a shell under max_tier always goes to the browser.
      const renderJs = config.advanced?.render_js || undefined;
      const fetchedAt = await fetchThroughTiers(scope.tiers, renderJs, (at) => deps.fetchers.withRoom(at, scope, () => politeFetch(page, scope, deps, delayMs, at)));
      if (!fetchedAt) return null;
      const { outcome } = fetchedAt;
      tier = fetchedAt.tier;
      if (outcome.kind === 'failed') return failed(page.url, outcome.code, outcome.message, outcome.statusCode ?? 0, tier);
      fetched = outcome;
      if (config.cache) await writeCachedPage(deps.redis, cacheKey, fetched, config.cache_ttl);
    }
    const followLinks = config.sitemap !== 'only' && page.depth < config.max_depth && /html/i.test(fetched.contentType);
    // The links are read in the pipeline's own parse of the page, on its thread.
    const { result, links: found } = await deps.pipelineSlots.run(() =>
      deps.pipeline.processPage(
      {
        bytes: fetched.body,
        charset: fetched.charset,
        input: {
          ...pipelineInput(
            create(PipelineOptionsSchema, {
              formats: config.formats ?? DEFAULT_FORMATS,
              onlyMainContent: true,
              ...(config.extraction_schema ? { extractionSchema: config.extraction_schema as never } : {}),
              ...(config.extraction_profile ? { extractionProfile: config.extraction_profile } : {}),
            }),
          ),
          contentType: fetched.contentType,
          url: fetched.finalUrl,
          endpoint: 'scrape',
          links: followLinks,
        },
        source: {
          url: page.url,
          finalUrl: fetched.finalUrl,
          statusCode: fetched.statusCode,
          headers: fetched.headers,
          responseTimeMs: fetched.timings.totalMs,
          sizeBytes: fetched.bytes,
          includeRawHtml: false,
          contentAsFormats: false,
          screenshotUrl: fetched.screenshotUrl,
        },
      },
      { deadlineMs: scope.deadlineMs },
      ),
    );
    const linkRefs = found ? scope.links.refs(frontierLinks(found.links, page.depth, scope.rules)) : [];
    const resultKey = deps.keys.crawlPageResult(scope.crawlId, digest);
    scope.results.add(resultKey, Buffer.from(result.buffer, result.byteOffset, result.byteLength));
    return create(CrawlPageOutcomeSchema, {
      url: page.url,
      ok: true,
      statusCode: fetched.statusCode,
      tier,
      resultKey,
      cached,
      linkRefs,
      fetchMs: BigInt(Date.now() - started),
    });
  } catch (err) {
    const failure = publicFailure(err, 'EXTRACTION_FAILED', 'The page could not be processed');
    return failed(page.url, failure.code, failure.message);
  }
}
