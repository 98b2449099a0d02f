import type { JsonObject } from '@bufbuild/protobuf';
import type { z } from 'zod';
import { FOLLOW_UP_HEADER } from '../../../common/rate-limit-headers.js';
import { presentCrawlPage } from '../../../common/crawl-page-json.js';
import { toCredits } from '../../../common/pricing.js';
import type { CrawlStatus } from '../../../proto/gen/trawl/v1/crawl_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { KEY_BUDGET_ERROR } from '../keys/errors.js';
import { CREDIT_HEADERS } from '../shared/billing.js';
import { crawlEventStream, followUpOptions, lastEventId } from './event-stream.js';
import {
  CrawlCancelled,
  CrawlIdParam,
  CrawlList,
  CrawlListQuery,
  CrawlRequest,
  CrawlResumed,
  CrawlResumeRequest,
  CrawlStarted,
  CrawlStatusBody,
  CrawlStatusQuery,
  CrawlStreamEvents,
} from './schemas.js';

const CALL_TIMEOUT_MS = 30_000;

function presentBilling(s: CrawlStatus) {
  const b = s.billing;
  return {
    credits_debited: b?.creditsDebited ?? 0,
    credits_used: b?.creditsUsed ?? 0,
    credits_refunded: b?.creditsRefunded ?? 0,
    estimated_cost_usd: b?.estimatedCostUsd ?? 0,
    actual_cost_usd: b?.actualCostUsd ?? 0,
    is_byop: b?.isByop ?? false,
    tier_breakdown: b?.tierBreakdown ?? {},
  };
}

function presentStatus(s: CrawlStatus, withResults: boolean) {
  const billing = presentBilling(s);
  return {
    crawl_id: s.crawlId,
    url: s.url,
    status: s.status,
    total: s.total,
    completed: s.completed,
    failed: s.failed,
    in_progress: s.inProgress,
    cancelled: s.cancelled,
    credits_debited: billing.credits_debited,
    current_depth: s.currentDepth,
    max_depth: s.maxDepth,
    max_pages: s.maxPages,
    total_discovered: s.totalDiscovered,
    billing,
    budget_status: { budget: s.budgetStatus?.budget ?? {}, counts: s.budgetStatus?.counts ?? {}, exhausted: s.budgetStatus?.exhausted ?? [] },
    error: s.errorCode ? { code: s.errorCode, message: s.errorMessage ?? '' } : null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    completed_at: s.completedAt ?? null,
    config: s.config ?? {},
    change_tracking: s.changeTracking ?? null,
    storage: (s.storage ?? { type: 'redis' }) as z.infer<typeof CrawlStatusBody>['storage'],
    ...(s.outputStatus ? { output_status: s.outputStatus as z.infer<typeof CrawlStatusBody>['output_status'] } : {}),
    ...(withResults ? presentResults(s) : {}),
  };
}

/** include_results: the pages inline, or (storage s3/r2) where the files are. */
function presentResults(s: CrawlStatus) {
  const storage = s.storage as { type?: string; pages_stored?: number } | undefined;
  if (storage && storage.type !== 'redis') return { results: [], results_total: storage.pages_stored ?? 0, results_location: 'storage' as const };
  return { results: s.results.map(presentCrawlPage), results_total: s.resultsTotal, results_location: 'inline' as const };
}

function presentListItem(s: CrawlStatus) {
  const billing = presentBilling(s);
  return {
    crawl_id: s.crawlId,
    url: s.url,
    status: s.status,
    total_pages: s.total,
    completed_pages: s.completed,
    failed_pages: s.failed,
    credits_debited: billing.credits_debited,
    credits_used: billing.credits_used,
    credits_refunded: billing.credits_refunded,
    max_depth: s.maxDepth,
    max_pages: s.maxPages,
    tier_breakdown: billing.tier_breakdown,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    completed_at: s.completedAt ?? null,
    duration_seconds: s.completedAt ? (Date.parse(s.completedAt) - Date.parse(s.createdAt)) / 1000 : null,
  };
}

const NOT_FOUND = "NOT_FOUND (unknown crawl, or another account's)";

export function crawlRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const cancel = (method: 'DELETE' | 'POST', path: string, operationId: string, summary: string) =>
    defineRoute({
      method,
      path,
      operationId,
      summary,
      description: 'Pages queued or in progress are cancelled and what they had reserved is refunded; completed pages and their results are kept.',
      tags: ['Crawl'],
      auth: 'api_key',
      request: { params: CrawlIdParam },
      responses: { 200: { description: 'The crawl is cancelled', schema: CrawlCancelled } },
      errors: { 404: NOT_FOUND, 409: 'CONFLICT: the crawl has already ended (completed, partial, failed or cancelled)' },
      handler: async ({ ctx, params }) => {
        const res = await deps.controlPlane.crawl.cancelCrawl({ crawlId: params.crawl_id }, callOptions(ctx, CALL_TIMEOUT_MS));
        ctx.body = {
          crawl_id: res.crawlId,
          status: 'cancelled',
          cancelled_jobs: res.cancelledJobs,
          credits_refunded: res.creditsRefunded,
          credits_used: res.creditsUsed,
          message: res.message,
        };
      },
    });

  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/crawl',
      operationId: 'startCrawl',
      summary: 'Crawl a site',
      description:
        'Discovers the pages of a site (robots.txt, sitemaps, links) and scrapes each into the requested formats, asynchronously. ' +
        'The credits of the planned pages (max_pages, or fewer under budget and max_credits) are reserved now at the dearest planned tier (tier 1 by default; ' +
        'render_js, force_tier and max_tier plan others); each page is charged at the tier that fetched it ' +
        '(a cached page is free, a failed one is not charged) and the rest is refunded when the crawl ends. Follow it with GET /api/v1/crawl/{crawl_id} ' +
        'or its event stream.',
      tags: ['Crawl'],
      auth: 'api_key',
      request: { body: CrawlRequest },
      responses: { 202: { description: 'The crawl is under way', schema: CrawlStarted, headers: CREDIT_HEADERS } },
      errors: {
        400:
          'VALIDATION_ERROR (invalid fields, webhook with webhook_url, force_tier above max_tier, render_js under a max_tier below 4, an output service account key that is not one), ' +
          'EXCEEDS_COST_LIMIT (max_credits pays for no page) or STORAGE_NOT_CONFIGURED (storage s3 or r2 on a server without that bucket); nothing is charged',
        402: `INSUFFICIENT_CREDITS (the balance cannot cover the planned pages; details: required_credits, available_credits, estimated_tier) or ${KEY_BUDGET_ERROR}`,
        409: 'CONFLICT: another crawl of the account with the same change_tracking.tracking_id is still running (details: tracking_id, crawl_id)',
        503: 'SERVICE_UNAVAILABLE (the planned tier is not deployed, or not run by the crawl pool: 3.5)',
      },
      handler: async ({ ctx, body }) => {
        const state = ctx.state.trawl;
        state.targetUrl = body.url;
        const res = await deps.controlPlane.crawl.startCrawl(
          { config: JSON.parse(JSON.stringify(body)) as JsonObject, requestId: state.requestId },
          callOptions(ctx, CALL_TIMEOUT_MS),
        );
        state.jobId = res.crawlId;
        ctx.set('X-Service-Credits', String(res.estimatedCredits));
        ctx.set('X-Service-Credits-Remaining', String(toCredits(res.balanceMicrocents)));
        ctx.status = 202;
        ctx.body = {
          crawl_id: res.crawlId,
          status: res.status,
          estimated_pages: res.estimatedPages,
          total_enqueued: res.totalEnqueued,
          estimated_credits: res.estimatedCredits,
          message: res.message,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/crawl',
      operationId: 'listCrawls',
      summary: "The account's crawls",
      tags: ['Crawl'],
      auth: 'api_key',
      request: { query: CrawlListQuery },
      responses: { 200: { description: 'A page of crawls', schema: CrawlList } },
      handler: async ({ ctx, query }) => {
        const res = await deps.controlPlane.crawl.listCrawls(
          {
            limit: query.limit,
            offset: query.offset,
            status: query.status,
            domain: query.domain,
            dateFrom: query.date_from,
            dateTo: query.date_to,
            sort: query.sort,
            order: query.order,
          },
          callOptions(ctx, CALL_TIMEOUT_MS),
        );
        ctx.body = { crawls: res.crawls.map(presentListItem), total: res.total, limit: query.limit, offset: query.offset };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/crawl/{crawl_id}',
      operationId: 'getCrawl',
      summary: 'A crawl: progress, billing, budget and (optionally) its page results',
      description:
        'With include_results the finished pages are inlined (storage redis), or, for storage s3 and r2, `storage.files` lists the JSONL result ' +
        'files with presigned download URLs signed at this read (valid 7 days, files kept 30 days). A crawl with an `output` also reports ' +
        '`output_status`: pages delivered, pending and failed, and the last error.',
      tags: ['Crawl'],
      auth: 'api_key',
      request: { params: CrawlIdParam, query: CrawlStatusQuery },
      responses: { 200: { description: 'The crawl', schema: CrawlStatusBody } },
      errors: { 404: NOT_FOUND },
      handler: async ({ ctx, params, query }) => {
        const res = await deps.controlPlane.crawl.getCrawl(
          { crawlId: params.crawl_id, includeResults: query.include_results, resultsLimit: query.results_limit, resultsOffset: query.results_offset },
          callOptions(ctx, CALL_TIMEOUT_MS),
        );
        ctx.body = presentStatus(res, query.include_results);
      },
    }),
    cancel('DELETE', '/api/v1/crawl/{crawl_id}', 'cancelCrawl', 'Cancel a crawl'),
    cancel('POST', '/api/v1/crawl/{crawl_id}/cancel', 'cancelCrawlPost', 'Cancel a crawl (alias of DELETE /api/v1/crawl/{crawl_id})'),
    defineRoute({
      method: 'POST',
      path: '/api/v1/crawl/{crawl_id}/resume',
      operationId: 'resumeCrawl',
      summary: 'Resume a cancelled, failed or partial crawl',
      description:
        'Failed and cancelled pages are queued again, with any new URLs of the same site; the crawl goes back to scraping. ' +
        'Credits are reserved only for the work still to do (completed pages are never charged again) and the unused part is refunded when it ends.',
      tags: ['Crawl'],
      auth: 'api_key',
      request: { params: CrawlIdParam, body: CrawlResumeRequest },
      responses: { 200: { description: 'The crawl is scraping again', schema: CrawlResumed } },
      errors: {
        400: "VALIDATION_ERROR (a URL outside the crawl's site)",
        402: 'INSUFFICIENT_CREDITS',
        404: NOT_FOUND,
        409: 'CONFLICT: the crawl is still active or completed, there is nothing to resume, or another crawl with its change_tracking.tracking_id is running',
      },
      handler: async ({ ctx, params, body }) => {
        const res = await deps.controlPlane.crawl.resumeCrawl({ crawlId: params.crawl_id, urls: body.urls }, callOptions(ctx, CALL_TIMEOUT_MS));
        ctx.body = {
          crawl_id: res.crawlId,
          status: 'scraping',
          requeued: res.requeued,
          added_urls: res.addedUrls,
          credits_debited: res.creditsDebited,
          message: res.message,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/crawl/{crawl_id}/stream',
      operationId: 'streamCrawl',
      summary: "A crawl's live events (Server-Sent Events)",
      description:
        'text/event-stream of page.completed, page.failed, crawl.progress and crawl.completed (the connection closes after it), each with an ' +
        'increasing integer id; heartbeat every 15 s; timeout after 30 minutes. Reconnect with Last-Event-ID to resume: every event after it is ' +
        'sent once, from any gateway.',
      tags: ['Crawl'],
      auth: 'api_key',
      request: { params: CrawlIdParam },
      responses: { 200: { description: 'The event stream; the schema shows each event\'s data', schema: CrawlStreamEvents, textMediaTypes: ['text/event-stream'] } },
      errors: { 404: NOT_FOUND },
      handler: async ({ ctx, params }) => {
        const options = callOptions(ctx, CALL_TIMEOUT_MS);
        const header = ctx.get('Last-Event-ID');
        const after = lastEventId(header);
        const first = await deps.controlPlane.crawl.readCrawlEvents({ crawlId: params.crawl_id, afterId: after }, options);
        const later = followUpOptions(options, FOLLOW_UP_HEADER);
        ctx.req.socket.setTimeout(0);
        ctx.set('Cache-Control', 'no-cache');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.type = 'text/event-stream';
        ctx.status = 200;
        ctx.body = crawlEventStream({ read: (afterId) => deps.controlPlane.crawl.readCrawlEvents({ crawlId: params.crawl_id, afterId }, later) }, after, first);
      },
    }),
  ];
}
