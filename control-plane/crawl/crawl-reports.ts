import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { CrawlBatchReportSchema, type CrawlBatchReport, type DiscoveredLink } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { withTransaction } from '../billing/ledger.js';
import { consumeReportStream } from '../report-stream.js';
import { diffSurcharge, prepareTrackedReport, recordPageChanges, type PageChangeEvent, type TrackedReport } from './change-tracking.js';
import { recordCrawlEvents, type CrawlHappening } from './crawl-events.js';
import { crawlProgress, eventTarget, pageJobId, progressData } from './crawl-progress.js';
import type { CrawlScheduler } from './crawl-scheduler.js';
import { plannedPages, widenAllowance } from './crawl-allowance.js';
import { pageCharge } from './crawl-tiers.js';
import { ACTIVE, addCounts, addToFrontier, finishPages, lockCrawl, releaseBatch, retryPages, type PageResultInput } from './crawl-store.js';

/** Failures that may pass: such a page is queued again once before it counts as failed. */
const RETRYABLE: ReadonlySet<string> = new Set(['TIMEOUT', 'NETWORK_ERROR', 'TARGET_UNAVAILABLE', 'EXTRACTION_FAILED', 'INTERNAL_ERROR']);
const MAX_RETRIES = 1;

/** The tier_breakdown key of pages answered from the cache (free). */
export const CACHE_TIER = 'cache';

/**
 * The links of a report for the frontier, each URL once: the pages of a batch share most of their links (a site's
 * navigation), and the first occurrence is the one the insert would keep anyway (in order, conflicts do nothing),
 * so Postgres is not handed the same URL again and again.
 */
function frontierUrls(links: readonly DiscoveredLink[], maxDepth: number) {
  const seen = new Set<string>();
  const urls = [];
  for (const l of links) {
    if (l.depth > maxDepth || seen.has(l.url)) continue;
    seen.add(l.url);
    urls.push({ url: l.url, depth: l.depth, score: l.score, source: l.source || 'link', budgetKey: l.budgetKey || null });
  }
  return urls;
}

/**
 * The seeds and the links found by the report's pages that were applied and succeeded, in page order: a page's
 * links written out in full, then those it names in the report's link table (each entry once, at its first use).
 */
export function foundLinks(report: CrawlBatchReport, appliedUrls: ReadonlySet<string>): DiscoveredLink[] {
  const links: DiscoveredLink[] = [...report.seeds];
  const taken = new Uint8Array(report.links.length);
  for (const p of report.pages) {
    if (!appliedUrls.has(p.url) || !p.ok) continue;
    links.push(...p.links);
    for (const at of p.linkRefs) {
      const link = report.links[at];
      if (link === undefined || taken[at] === 1) continue;
      taken[at] = 1;
      links.push(link);
    }
  }
  return links;
}

/**
 * Applies what a crawl worker did with a batch, in one transaction under the
 * crawl's lock: each page still claimed by the batch is finished once and
 * charged at its tier (a cached page is free, a failed one is not charged,
 * one robots.txt refuses is dropped and gives its place back), the links it
 * found join the frontier (each normalised URL once), pages the worker did
 * not get to go back to the frontier, and the events are recorded. A report
 * for a crawl that ended (cancelled) or a batch whose claims expired changes
 * nothing for those pages.
 */
export async function applyCrawlReport(pool: pg.Pool, report: CrawlBatchReport, tracked: TrackedReport | null = null): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const crawl = await lockCrawl(client, report.crawlId);
    if (!crawl || !ACTIVE.includes(crawl.status)) return false;
    // What each page reserved: its dearest planned tier with the add-ons, and any diff surcharge.
    const tierReserve = crawl.price_microcents - (tracked?.tracking.surchargeMicrocents ?? 0);
    const retryable = report.pages.filter((p) => !p.ok && !p.disallowed && RETRYABLE.has(p.errorCode)).map((p) => p.url);
    const retried = await retryPages(client, crawl.id, report.batchId, retryable, MAX_RETRIES);
    const inputs: PageResultInput[] = report.pages.filter((p) => !retried.has(p.url)).map((p) => ({
      url: p.url,
      status: p.disallowed ? 'skipped' : p.ok ? 'completed' : 'failed',
      statusCode: p.statusCode,
      tier: p.cached ? CACHE_TIER : p.tier || crawl.tier,
      costMicrocents: p.ok && !p.cached ? pageCharge(tierReserve, p.tier || crawl.tier, crawl.config) + diffSurcharge(tracked, p.url) : 0,
      cached: p.cached,
      resultKey: p.resultKey || null,
      errorCode: p.ok ? null : p.errorCode || null,
      errorMessage: p.ok ? null : p.errorMessage || null,
    }));
    const applied = await finishPages(client, crawl.id, report.batchId, inputs);
    const released = await releaseBatch(client, crawl.id, report.batchId);
    const appliedUrls = new Set(applied.map((p) => p.url));
    const changes = tracked ? await recordPageChanges(client, tracked, applied.filter((p) => p.status === 'completed').map((p) => p.url)) : new Map<string, PageChangeEvent>();

    await addToFrontier(client, crawl.id, frontierUrls(foundLinks(report, appliedUrls), crawl.max_depth));

    const tiers: Record<string, number> = {};
    let used = 0;
    let depth = crawl.current_depth;
    const happenings: CrawlHappening[] = [];
    for (const p of applied) {
      if (p.status === 'skipped') continue;
      const jobId = pageJobId(crawl.id, p.url);
      if (p.status === 'completed') {
        tiers[p.tier] = (tiers[p.tier] ?? 0) + 1;
        used += p.costMicrocents;
        depth = Math.max(depth, p.depth);
        const change = changes.get(p.url);
        const data = {
          crawl_id: crawl.id,
          job_id: jobId,
          url: p.url,
          depth: p.depth,
          status: 'completed',
          cost_microcents: p.costMicrocents,
          tier_used: p.tier,
          status_code: p.statusCode,
          ...(change ? { change_tracking: change } : {}),
        };
        happenings.push({ stream: 'page.completed', outbox: 'crawl.page.completed', data });
      } else {
        const data = { crawl_id: crawl.id, job_id: jobId, url: p.url, depth: p.depth, status: 'failed', error: { code: p.errorCode ?? 'INTERNAL_ERROR', message: p.errorMessage ?? '' } };
        happenings.push({ stream: 'page.failed', outbox: 'crawl.page.failed', data });
      }
    }
    const completed = applied.filter((p) => p.status === 'completed').length;
    const failed = applied.filter((p) => p.status === 'failed').length;
    const skipped = applied.length - completed - failed;
    await addCounts(client, crawl.id, { completed, failed, released: skipped + released + retried.size, usedMicrocents: used, tiers, depth });
    // What these pages did not spend of their reservation may pay for more pages (under max_credits).
    const planned = plannedPages(crawl.config);
    const allowance = crawl.page_limit < planned ? await widenAllowance(client, crawl.id, planned) : null;
    if (happenings.length > 0) {
      const progress = await crawlProgress(client, allowance === null ? crawl : { ...crawl, page_limit: allowance });
      happenings.push({ stream: 'crawl.progress', data: progressData({ id: crawl.id, current_depth: depth }, progress, Number(crawl.used_microcents) + used) });
    }
    await recordCrawlEvents(client, eventTarget(crawl), happenings);
    return true;
  });
}

/** Reports applied at once; each holds a Postgres connection while it runs. */
const REPORT_CONCURRENCY = 4;

/**
 * Pulls crawl batch reports with one durable consumer shared by every
 * control-plane replica, applies each, acks it, then looks at the crawl
 * again (the next batch goes out at once). A report whose application fails
 * is redelivered; applying one twice changes nothing.
 */
export async function startCrawlReportConsumer(deps: {
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  pool: pg.Pool;
  redis: Redis;
  scheduler: CrawlScheduler;
  log: Logger;
}): Promise<{ stop(): Promise<void> }> {
  return consumeReportStream(deps, {
    stream: deps.names.crawlReportsStream,
    consumer: deps.names.crawlReportsConsumer,
    schema: CrawlBatchReportSchema,
    what: 'crawl report',
    concurrency: REPORT_CONCURRENCY,
    async apply(report) {
      const tracked = await prepareTrackedReport(deps.pool, deps.redis, report);
      if (await applyCrawlReport(deps.pool, report, tracked)) deps.scheduler.kick(report.crawlId);
    },
  });
}
