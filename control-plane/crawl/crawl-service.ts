import { randomUUID } from 'node:crypto';
import { create, type JsonObject } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { budgetMatcher, CRAWL_LIMITS, type CrawlConfig } from '../../common/crawl-config.js';
import { TrawlError } from '../../common/errors.js';
import { isUuid } from '../../common/ids.js';
import type { PremiumProxy } from '../../common/proxy-url.js';
import { toCredits, toUsd } from '../../common/pricing.js';
import { normalizeUrl } from '../../common/url-normalizer.js';
import {
  BudgetStatusSchema,
  CancelCrawlResponseSchema,
  CrawlBillingSchema,
  CrawlEventSchema,
  CrawlService,
  CrawlStatusSchema,
  ListCrawlsResponseSchema,
  ReadCrawlEventsResponseSchema,
  ResumeCrawlResponseSchema,
  StartCrawlResponseSchema,
  type CrawlStatus,
} from '../../proto/gen/trawl/v1/crawl_pb.js';
import { callerOf } from '../accounts/caller.js';
import { applyLedgerEntry, withTransaction } from '../billing/ledger.js';
import { addMoney, ACTIVE, addToFrontier, eventSeqOf, eventsAfter, findCrawl, findCrawlById, finishedPages, insertCrawl, listCrawls, lockCrawl, reopenCrawl, type CrawlRow } from './crawl-store.js';
import { assertResumable, changeSummary, changeTrackingRequest, pageChanges, registerChangeTracking } from './change-tracking.js';
import { pagesCovered, plannedPages, resumedAllowance } from './crawl-allowance.js';
import { crawlReference, endCrawl } from './crawl-ending.js';
import { recordCrawlEvents } from './crawl-events.js';
import { openDelivery } from './crawl-delivery-store.js';
import { prepareDelivery, type DeliverySettings } from './crawl-delivery-request.js';
import { deliveryStatus } from './crawl-delivery-status.js';
import { crawlPageOf } from './crawl-page.js';
import { crawlProgress, eventTarget, type CrawlProgress } from './crawl-progress.js';
import { crawlTierPlan } from './crawl-tiers.js';
import { assertPremiumProxy } from '../scrape/proxy-options.js';
import type { CrawlScheduler } from './crawl-scheduler.js';

export interface CrawlServiceDeps {
  pool: pg.Pool;
  redis: Redis;
  scheduler: CrawlScheduler;
  /** Tiers with a worker pool deployed (TRAWL_AVAILABLE_TIERS); a crawl page's fetch tiers run in the crawl pool. */
  availableTiers: readonly string[];
  /** Trawl's buckets (storage s3/r2) and the key sealing output credentials. */
  delivery: DeliverySettings;
  /** The premium proxy network (TRAWL_PREMIUM_PROXY_URLS) that advanced.use_proxy sends pages through. */
  premiumProxies: readonly PremiumProxy[];
}

/** Events answered per read of the stream. */
const EVENTS_PER_READ = 500;

/** The domain a crawl is listed under: its start host, lower-case, without a leading `www.`. */
function crawlDomain(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}

function inScope(url: URL, crawl: CrawlRow): boolean {
  const host = crawlDomain(url.hostname);
  return host === crawl.domain || (crawl.config.include_subdomains && host.endsWith(`.${crawl.domain}`));
}

function notFound(crawlId: string): TrawlError {
  return new TrawlError('NOT_FOUND', `No crawl ${crawlId}`);
}

function statusOf(row: CrawlRow, progress: CrawlProgress | null): CrawlStatus {
  const active = ACTIVE.includes(row.status);
  const p = progress ?? {
    completed: row.completed,
    failed: row.failed,
    cancelled: row.cancelled,
    inProgress: active ? Math.max(0, row.claimed - row.completed - row.failed) : 0,
    total: active ? Math.max(row.completed + row.failed, Math.min(row.total_discovered, row.page_limit)) : row.completed + row.failed,
  };
  const budget = row.config.budget ?? {};
  return create(CrawlStatusSchema, {
    crawlId: row.id,
    url: row.url,
    status: row.status,
    total: p.total,
    completed: p.completed,
    failed: p.failed,
    inProgress: p.inProgress,
    cancelled: p.cancelled,
    currentDepth: row.current_depth,
    maxDepth: row.max_depth,
    maxPages: row.max_pages,
    totalDiscovered: row.total_discovered,
    billing: create(CrawlBillingSchema, {
      creditsDebited: toCredits(row.debited_microcents),
      creditsUsed: toCredits(row.used_microcents),
      creditsRefunded: toCredits(row.refunded_microcents),
      estimatedCostUsd: toUsd(row.estimated_pages * row.price_microcents),
      actualCostUsd: toUsd(row.used_microcents),
      isByop: false,
      tierBreakdown: row.tier_breakdown,
    }),
    budgetStatus: create(BudgetStatusSchema, {
      budget,
      counts: row.budget_counts,
      exhausted: Object.keys(budget).filter((k) => (row.budget_counts[k] ?? 0) >= budget[k]!),
    }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.completed_at ? { completedAt: row.completed_at.toISOString() } : {}),
    ...(row.error_code ? { errorCode: row.error_code, errorMessage: row.error_message ?? '' } : {}),
    config: row.config as unknown as JsonObject,
  });
}

/** Takes a reservation from the balance under the round's reference; a balance that cannot cover it answers 402. */
async function reserve(client: pg.PoolClient, crawl: { id: string; account_id: string; tier_plan: string[] }, round: number, microcents: number): Promise<number> {
  const entry = await applyLedgerEntry(client, { accountId: crawl.account_id, kind: 'reserve', amountMicrocents: -microcents, reference: crawlReference(crawl.id, round) });
  if (!entry.applied && entry.reason === 'insufficient') {
    throw new TrawlError('INSUFFICIENT_CREDITS', 'The balance cannot cover the pages this crawl plans', {
      required_credits: toCredits(microcents),
      available_credits: toCredits(entry.balanceMicrocents),
      estimated_tier: crawl.tier_plan[crawl.tier_plan.length - 1],
    });
  }
  return entry.balanceMicrocents;
}

/**
 * Crawls: start (reserve the planned pages, seed the frontier), status,
 * history, cancel, resume and the stored stream. The frontier is worked by
 * the crawl scheduler and the crawl pool.
 */
export function createCrawlService(deps: CrawlServiceDeps): ServiceImpl<typeof CrawlService> {
  const own = async (crawlId: string, accountId: string) => {
    const row = isUuid(crawlId) ? await findCrawl(deps.pool, crawlId, accountId) : undefined;
    if (!row) throw notFound(crawlId);
    return row;
  };

  return {
    async startCrawl(req, ctx) {
      const caller = callerOf(ctx);
      const delivery = prepareDelivery(req.config as unknown as CrawlConfig, deps.delivery);
      const config = delivery.config;
      const start = normalizeUrl(config.url);
      if (!start) throw new TrawlError('VALIDATION_ERROR', 'url must be an absolute http or https URL');
      if (config.advanced?.use_proxy) assertPremiumProxy(deps.premiumProxies, undefined);
      const plan = crawlTierPlan(config, deps.availableTiers);
      // Test keys (sk_test_) run free of charge, as for every request.
      const free = caller.environment === 'test';
      const tracking = changeTrackingRequest(config, start, free);
      // A page reserves its dearest planned tier with the add-ons and the change_tracking diff surcharge, so reservations, max_credits and estimates count them all.
      const price = free ? 0 : plan.reserveMicrocents + (tracking?.surchargeMicrocents ?? 0);
      const planned = plannedPages(config);
      const affordable = pagesCovered(config, price);
      if (affordable < 1) {
        const maxCredits = config.cost_controls?.max_credits;
        throw new TrawlError('EXCEEDS_COST_LIMIT', `One page reserves ${toCredits(price)} credits, more than max_credits ${maxCredits}`, {
          max_credits: maxCredits,
          estimated_credits: toCredits(price),
        });
      }
      const pageLimit = Math.min(planned, affordable);
      const reserved = pageLimit * price;
      const id = randomUUID();
      const url = new URL(start);
      const balance = await withTransaction(deps.pool, async (client) => {
        const after = await reserve(client, { id, account_id: caller.accountId, tier_plan: plan.tiers }, 0, reserved);
        await insertCrawl(client, {
          id,
          account_id: caller.accountId,
          api_key_id: caller.keyId,
          url: start,
          domain: crawlDomain(url.hostname),
          status: 'discovering',
          config,
          max_pages: config.max_pages,
          max_depth: config.max_depth,
          page_limit: pageLimit,
          price_microcents: price,
          tier: plan.tiers[0]!,
          tier_plan: plan.tiers,
          debited_microcents: String(reserved),
          estimated_pages: pageLimit,
          request_id: req.requestId,
        });
        if (tracking) await registerChangeTracking(client, id, caller.accountId, tracking);
        await addToFrontier(client, id, [{ url: start, depth: 0, score: 1, source: 'link', budgetKey: budgetMatcher(config.budget)(start) }]);
        await openDelivery(client, id, delivery.sealed);
        const row = { id, account_id: caller.accountId, config };
        await recordCrawlEvents(client, eventTarget(row), [{ outbox: 'crawl.started', data: { crawl_id: id, url: start, max_pages: config.max_pages, max_depth: config.max_depth } }]);
        return after;
      });
      deps.scheduler.kick(id);
      return create(StartCrawlResponseSchema, {
        crawlId: id,
        status: 'discovering',
        estimatedPages: pageLimit,
        totalEnqueued: 1,
        estimatedCredits: toCredits(reserved),
        message:
          pageLimit < planned
            ? `Crawl started: ${pageLimit} pages at the dearest planned tier, and more (up to ${planned}) as pages cost less; ${toCredits(reserved)} credits reserved (max_credits), the unused part is refunded when it ends`
            : `Crawl started: up to ${pageLimit} pages; ${toCredits(reserved)} credits reserved, the unused part is refunded when it ends`,
        balanceMicrocents: BigInt(balance),
      });
    },

    async getCrawl(req, ctx) {
      const caller = callerOf(ctx);
      const row = await own(req.crawlId, caller.accountId);
      const status = statusOf(row, await crawlProgress(deps.pool, row));
      const changes = await changeSummary(deps.pool, row);
      if (changes) status.changeTracking = changes;
      Object.assign(status, await deliveryStatus(deps.pool, row, deps.delivery.storage));
      // With storage s3 or r2 the results are the files `storage` lists, not inlined.
      if (!req.includeResults || row.config.storage !== 'redis') return status;
      const limit = req.resultsLimit || CRAWL_LIMITS.resultsLimitDefault;
      if (limit < 1 || limit > CRAWL_LIMITS.resultsLimitMax) throw new TrawlError('VALIDATION_ERROR', `results_limit must be 1 to ${CRAWL_LIMITS.resultsLimitMax}`);
      const { rows, total } = await finishedPages(deps.pool, row.id, limit, Math.max(0, req.resultsOffset));
      const keys = rows.map((r) => r.result_key);
      const stored = keys.some((k) => k) ? await deps.redis.mgetBuffer(...keys.map((k) => k ?? '')) : [];
      const pageChange = changes ? await pageChanges(deps.pool, row.id, rows.map((r) => r.url)) : new Map<string, JsonObject>();
      status.resultsTotal = total;
      status.results = rows.map((r, i) => crawlPageOf(row.id, r, stored[i], pageChange.get(r.url)));
      return status;
    },

    async listCrawls(req, ctx) {
      const caller = callerOf(ctx);
      const limit = req.limit || CRAWL_LIMITS.listLimitDefault;
      if (limit < 1 || limit > CRAWL_LIMITS.listLimitMax) throw new TrawlError('VALIDATION_ERROR', `limit must be 1 to ${CRAWL_LIMITS.listLimitMax}`);
      const { rows, total } = await listCrawls(deps.pool, caller.accountId, {
        limit,
        offset: Math.max(0, req.offset),
        ...(req.status ? { status: req.status } : {}),
        ...(req.domain ? { domain: req.domain.toLowerCase() } : {}),
        ...(req.dateFrom ? { dateFrom: req.dateFrom } : {}),
        ...(req.dateTo ? { dateTo: req.dateTo } : {}),
        sort: req.sort === 'status' ? 'status' : 'created_at',
        order: req.order === 'asc' ? 'asc' : 'desc',
      });
      return create(ListCrawlsResponseSchema, { total, crawls: rows.map((r) => statusOf(r, null)) });
    },

    async cancelCrawl(req, ctx) {
      const caller = callerOf(ctx);
      if (!isUuid(req.crawlId)) throw notFound(req.crawlId);
      const outcome = await withTransaction(deps.pool, async (client) => {
        const row = await lockCrawl(client, req.crawlId, caller.accountId);
        if (!row) throw notFound(req.crawlId);
        if (!ACTIVE.includes(row.status)) throw new TrawlError('CONFLICT', `The crawl is already ${row.status}; only an active crawl can be cancelled`, { status: row.status });
        return endCrawl(client, row, { status: 'cancelled', leftover: 'cancelled' });
      });
      return create(CancelCrawlResponseSchema, {
        crawlId: req.crawlId,
        status: 'cancelled',
        cancelledJobs: outcome.leftover,
        creditsRefunded: toCredits(outcome.refundedMicrocents),
        creditsUsed: toCredits(outcome.usedMicrocents),
        message: `Crawl cancelled: ${outcome.leftover} pending pages cancelled, completed pages kept`,
      });
    },

    async resumeCrawl(req, ctx) {
      const caller = callerOf(ctx);
      if (!isUuid(req.crawlId)) throw notFound(req.crawlId);
      const result = await withTransaction(deps.pool, async (client) => {
        const row = await lockCrawl(client, req.crawlId, caller.accountId);
        if (!row) throw notFound(req.crawlId);
        if (!['cancelled', 'failed', 'partial'].includes(row.status)) {
          throw new TrawlError('CONFLICT', `A ${row.status} crawl cannot be resumed; only cancelled, failed and partial ones can`, { status: row.status });
        }
        await assertResumable(client, row.id);
        const added: string[] = [];
        for (const raw of req.urls) {
          const key = normalizeUrl(raw);
          if (!key || !inScope(new URL(key), row)) {
            throw new TrawlError('VALIDATION_ERROR', `${raw} is not within the crawl's site (${row.domain})`, { field: 'urls' });
          }
          added.push(key);
        }
        const requeued = await reopenCrawl(client, row.id, added.length);
        await openDelivery(client, row.id);
        const match = budgetMatcher(row.config.budget);
        const fresh = await addToFrontier(client, row.id, added.map((url) => ({ url, depth: 0, score: 1, source: 'link', budgetKey: match(url) })));
        if (requeued + fresh === 0) throw new TrawlError('CONFLICT', 'Nothing to resume: no failed or cancelled pages, and no new URLs', { status: row.status });
        const reopened = (await findCrawlById(client, row.id))!;
        // Only the work still to do is reserved: the allowance left after the completed pages, within max_credits.
        const microcents = (await resumedAllowance(client, reopened)) * reopened.price_microcents;
        await reserve(client, row, reopened.round, microcents);
        await addMoney(client, row.id, 'debited_microcents', microcents);
        return { requeued, fresh, microcents };
      });
      deps.scheduler.kick(req.crawlId);
      return create(ResumeCrawlResponseSchema, {
        crawlId: req.crawlId,
        status: 'scraping',
        requeued: result.requeued,
        addedUrls: result.fresh,
        creditsDebited: toCredits(result.microcents),
        message: `Crawl resumed: ${result.requeued} pages queued again, ${result.fresh} new URLs`,
      });
    },

    async readCrawlEvents(req, ctx) {
      const caller = callerOf(ctx);
      const row = await own(req.crawlId, caller.accountId);
      const limit = Math.min(Math.max(req.limit || EVENTS_PER_READ, 1), EVENTS_PER_READ);
      const events = await eventsAfter(deps.pool, row.id, req.afterId, limit);
      const last = events.length > 0 ? BigInt(events[events.length - 1]!.seq) : req.afterId;
      const latest = await eventSeqOf(deps.pool, row.id);
      return create(ReadCrawlEventsResponseSchema, {
        events: events.map((e) => create(CrawlEventSchema, { id: BigInt(e.seq), event: e.event, data: e.data as JsonObject })),
        ended: !ACTIVE.includes(latest.status) && last >= BigInt(latest.event_seq),
      });
    },
  };
}
