import { create, type JsonObject } from '@bufbuild/protobuf';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import { fromConnectError } from '../../common/rpc-errors.js';
import { CostControlsSchema, RagOptionsSchema, ScrapeRequestSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { ControlPlane } from '../control-plane-client.js';
import { refuseNulCharacters, validationError } from '../http-errors.js';
import { callOptions } from './call-options.js';
import { pollUrl, presentBilling, presentJobError, presentResult } from '../presenters.js';
import type { z } from 'zod';
import { LegacyJsRequest, LegacyLightRequest, LegacyOcrRequest, LegacyPdfRequest, ScrapeRequest, type ScrapeRequestInput } from '../schemas/scrape.js';

/** The sync safe deadline (SPEC 4.1): past it the request is handed off with a 202. */
export const SYNC_DEADLINE_MS = 85_000;
const MICROCENTS_PER_CREDIT = 200;

export function ragOptions(r: { chunk_size?: number | undefined; overlap?: number | undefined } | undefined) {
  return r ? create(RagOptionsSchema, { chunkSize: r.chunk_size, overlap: r.overlap }) : undefined;
}

function toProto(input: ScrapeRequestInput) {
  const cc = input.cost_controls;
  return create(ScrapeRequestSchema, {
    url: input.url,
    mode: input.mode,
    sync: input.sync,
    syncPolicy: input.sync_policy,
    formats: input.formats,
    advanced: input.advanced as JsonObject | undefined,
    costControls: cc
      ? create(CostControlsSchema, {
          maxCredits: cc.max_credits ?? cc.max_cost,
          forceTier: cc.force_tier,
          maxTier: cc.max_tier,
          preferCost: cc.prefer_cost ?? false,
          preferSpeed: cc.prefer_speed ?? false,
          failFast: cc.fail_fast ?? false,
        })
      : undefined,
    forceRefresh: input.force_refresh,
    includeRawHtml: input.include_raw_html,
    timeout: input.timeout,
    extractionSchema: input.extraction_schema as JsonObject | undefined,
    extractionProfile: input.extraction_profile,
    extractionPrompt: input.extraction_prompt,
    waitFor: input.wait_for,
    waitUntil: input.wait_until,
    enableScroll: input.enable_scroll,
    cache: input.cache,
    cacheTtl: input.cache_ttl,
    webhookUrl: input.webhook_url,
    location: input.location as JsonObject | undefined,
    method: input.method,
    body: input.body,
    contentType: input.content_type ?? 'application/json',
    ragOptions: ragOptions(input.rag_options),
  });
}

/** Runs one unified scrape and writes its answer (200, 202, or the error envelope via a throw). */
async function runScrape(ctx: Context, deps: { controlPlane: ControlPlane }, input: ScrapeRequestInput): Promise<void> {
  ctx.state.trawl.targetUrl = input.url;
  const waitMs = input.sync ? Math.max(0, SYNC_DEADLINE_MS - (Date.now() - ctx.state.trawl.startedAt)) : 0;
  let response;
  try {
    response = await deps.controlPlane.scrape.submit(
      { request: toProto(input), wait: input.sync, waitMs, requestId: ctx.state.trawl.requestId },
      callOptions(ctx, waitMs + 15_000),
    );
  } catch (err) {
    const trawl = fromConnectError(err);
    const jobId = trawl.details?.['job_id'];
    if (typeof jobId === 'string') ctx.state.trawl.jobId = jobId;
    throw trawl;
  }
  const job = response.job!;
  const balanceCredits = Number(response.balanceMicrocents) / MICROCENTS_PER_CREDIT;
  ctx.state.trawl.jobId = job.jobId;
  ctx.state.trawl.tier = job.tier;
  ctx.set('X-Service-Credits-Remaining', String(balanceCredits));

  if (job.status === 'succeeded' && job.result) {
    const charged = job.billing?.totalCredits ?? 0;
    ctx.state.trawl.creditsMicrocents = Math.round(charged * MICROCENTS_PER_CREDIT);
    ctx.set('X-Service-Credits', String(charged));
    ctx.status = 200;
    ctx.body = { ...presentResult(job.result), billing: presentBilling(job.billing, false), job_id: job.jobId, version: 'v1' };
    return;
  }
  if (job.status === 'failed') {
    ctx.set('X-Service-Credits', '0');
    const error = presentJobError(job)!;
    ctx.state.extraErrorFields = { ...ctx.state.extraErrorFields, billing: presentBilling(job.billing, true), job_id: job.jobId, version: 'v1' };
    throw new TrawlError(isErrorCode(error.code) ? error.code : 'SCRAPE_FAILED', error.message, { ...error.details, job_id: job.jobId });
  }
  ctx.status = 202;
  ctx.set('Location', pollUrl(job.jobId));
  ctx.body = {
    job_id: job.jobId,
    poll_url: pollUrl(job.jobId),
    status: job.status,
    message: input.sync ? 'The scrape is still running; poll poll_url for the result.' : 'The scrape was queued; poll poll_url for the result.',
    version: 'v1',
  };
}

/** When the deprecated per-mode routes go away (at least 90 days after this release, SPEC 9.2). */
export const LEGACY_SUNSET = 'Sat, 01 May 2027 00:00:00 GMT';

type LegacyRoute = { path: string; schema: z.ZodType; toUnified(body: Record<string, unknown>): Record<string, unknown> };

const LEGACY_ROUTES: LegacyRoute[] = [
  {
    path: '/api/v1/scrape/js',
    schema: LegacyJsRequest,
    toUnified: (b) => ({
      url: b['url'], mode: 'js', timeout: b['timeout'], force_refresh: b['force_refresh'], include_raw_html: b['include_raw_html'],
      formats: ['markdown'], wait_until: b['wait_until'], ...(b['wait_for'] ? { wait_for: b['wait_for'] } : {}),
      advanced: { render_js: true, ...(b['screenshot'] ? { screenshot: true } : {}) },
    }),
  },
  {
    path: '/api/v1/scrape/light',
    schema: LegacyLightRequest,
    toUnified: (b) => ({ url: b['url'], mode: 'html', timeout: b['timeout'], force_refresh: b['force_refresh'], include_raw_html: b['include_raw_html'], formats: ['markdown'] }),
  },
  {
    path: '/api/v1/scrape/ocr',
    schema: LegacyOcrRequest,
    toUnified: (b) => ({ url: b['url'], mode: 'ocr', force_refresh: b['force_refresh'], formats: ['text'], advanced: { ocr: true } }),
  },
  {
    path: '/api/v1/scrape/pdf',
    schema: LegacyPdfRequest,
    toUnified: (b) => ({ url: b['url'], mode: 'pdf', force_refresh: b['force_refresh'], formats: [b['format']] }),
  },
];

export function registerScrapeRoutes(router: Router, deps: { controlPlane: ControlPlane; publicBaseUrl: string }) {
  router.post('/api/v1/scrape', async (ctx: Context) => {
    ctx.state.trawl.route = 'POST /api/v1/scrape';
    refuseNulCharacters(ctx.request.body);
    const parsed = ScrapeRequest.safeParse(ctx.request.body ?? {});
    if (!parsed.success) throw validationError(parsed.error, 'body');
    await runScrape(ctx, deps, parsed.data);
  });

  router.post('/api/v1/scrape/estimate', async (ctx: Context) => {
    ctx.state.trawl.route = 'POST /api/v1/scrape/estimate';
    refuseNulCharacters(ctx.request.body);
    const parsed = ScrapeRequest.safeParse(ctx.request.body ?? {});
    if (!parsed.success) throw validationError(parsed.error, 'body');
    const input = parsed.data;
    let res;
    try {
      res = await deps.controlPlane.scrape.estimate({ request: toProto(input) }, callOptions(ctx, 10_000));
    } catch (err) {
      throw fromConnectError(err);
    }
    ctx.body = {
      url: input.url,
      mode: input.mode,
      estimated_credits: Number(res.estimatedMicrocents) / MICROCENTS_PER_CREDIT,
      max_possible_credits: Number(res.maxPossibleMicrocents) / MICROCENTS_PER_CREDIT,
      estimated_tier: res.tiers[0] ?? null,
      tier_plan: res.tiers,
      runnable: res.runnable,
      available_tiers: res.availableTiers,
      version: 'v1',
    };
  });

  for (const legacy of LEGACY_ROUTES) {
    router.post(legacy.path, async (ctx: Context) => {
      ctx.state.trawl.route = `POST ${legacy.path}`;
      const warning = {
        code: 'DEPRECATED_ENDPOINT',
        message: `${legacy.path} is deprecated and will be removed on ${LEGACY_SUNSET}; use POST /api/v1/scrape.`,
        documentation: `${deps.publicBaseUrl}/api/v1/docs#deprecated-routes`,
      };
      // On every answer, errors included (SPEC 9.5).
      ctx.set('Deprecation', 'true');
      ctx.set('Sunset', LEGACY_SUNSET);
      ctx.set('Link', `<${warning.documentation}>; rel="sunset"`);
      ctx.state.extraErrorFields = { warnings: [warning] };
      refuseNulCharacters(ctx.request.body);
      const parsed = legacy.schema.safeParse(ctx.request.body ?? {});
      if (!parsed.success) throw validationError(parsed.error, 'body');
      const unified = ScrapeRequest.safeParse(legacy.toUnified(parsed.data as Record<string, unknown>));
      if (!unified.success) throw validationError(unified.error, 'body');
      await runScrape(ctx, deps, unified.data);
      ctx.body = { ...(ctx.body as Record<string, unknown>), warnings: [warning] };
    });
  }
}
