import { create, type JsonObject } from '@bufbuild/protobuf';
import { CostControlsSchema, RagOptionsSchema, ScrapeRequestSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { requestedFormats, type ScrapeRequestInput } from './schemas.js';

export function ragOptions(r: { chunk_size?: number | undefined; overlap?: number | undefined } | undefined) {
  return r ? create(RagOptionsSchema, { chunkSize: r.chunk_size, overlap: r.overlap }) : undefined;
}

export function toProto(input: ScrapeRequestInput) {
  const cc = input.cost_controls;
  return create(ScrapeRequestSchema, {
    url: input.url,
    mode: input.mode,
    sync: input.sync,
    syncPolicy: input.sync_policy,
    formats: requestedFormats(input),
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
    waitForTimeout: input.wait_for_timeout,
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
    headers: input.headers ?? {},
    followRedirects: input.follow_redirects ? undefined : false,
  });
}
