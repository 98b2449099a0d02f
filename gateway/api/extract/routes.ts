import { toJson, type JsonObject } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { refuseUnusableContent } from '../../../common/extract-content.js';
import { EXTRACT_BODY_LIMIT_BYTES } from '../../../common/limits.js';
import { toCredits } from '../../../common/pricing.js';
import { EXTRACT_TIER } from '../../../common/tiers.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions, syncTimeLeftMs } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { KEY_BUDGET_ERROR } from '../keys/errors.js';
import { CREDIT_HEADERS } from '../shared/billing.js';
import { ragOptions } from '../scrape/to-proto.js';
import { ExtractRequest, ExtractResult } from './schemas.js';

export function extractRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/extract',
      operationId: 'extract',
      summary: 'Extract structured data from content you supply',
      description:
        'Runs the content pipeline on caller-supplied HTML, text or Markdown; nothing is fetched. Synchronous. ' +
        'Costs 2,500 microcents, 5,000 above 200,000 characters. With extraction_schema the page data is matched to your schema ' +
        '(aliases, nesting, type coercion); with extraction_prompt an LLM extracts it.',
      tags: ['Extract'],
      auth: 'api_key',
      // Up to 5 MB of content, escaped in JSON.
      bodyLimitBytes: EXTRACT_BODY_LIMIT_BYTES,
      request: { body: ExtractRequest },
      // The content goes to Redis and the pipeline, never to Postgres, so it may hold NUL.
      nulAllowedFields: ['content'],
      responses: { 200: { description: 'The extraction', schema: ExtractResult, headers: CREDIT_HEADERS } },
      errors: {
        400: 'VALIDATION_ERROR also covers extraction schemas over 64 KB and prompts over 2,000 characters',
        402: `INSUFFICIENT_CREDITS or ${KEY_BUDGET_ERROR}`,
        422: 'CONTENT_BLANK, CONTENT_OVER_LIMIT (over 5 MB) or EXTRACTION_FAILED (refunded)',
        502: 'UPSTREAM_ERROR: the LLM provider failed (refunded)',
        503: 'SERVICE_UNAVAILABLE: LLM extraction is not configured',
        504: 'TIMEOUT (refunded)',
      },
      // A failed extraction that was admitted is refunded in full; SPEC 7.5 puts that on the error body.
      errorFields: (err, ctx) => {
        const extractId = err.details?.['extract_id'];
        if (typeof extractId !== 'string') return undefined;
        ctx.state.trawl.jobId = extractId;
        return { billing: { credits_used: 0, refunded: true, reason: err.code }, extract_id: extractId, version: 'v1' };
      },
      handler: async ({ ctx, body: input }) => {
        const state = ctx.state.trawl;
        refuseUnusableContent(input.content);
        if (input.source_url) state.targetUrl = input.source_url;
        const waitMs = Math.max(1_000, syncTimeLeftMs(state));
        const res = await deps.controlPlane.extract.extract(
          {
            content: input.content,
            contentType: input.content_type,
            extractionSchema: input.extraction_schema as JsonObject | undefined,
            extractionProfile: input.extraction_profile,
            extractionPrompt: input.extraction_prompt,
            formats: input.formats,
            sourceUrl: input.source_url,
            evidence: input.evidence,
            ragOptions: ragOptions(input.rag_options),
            requestId: state.requestId,
            waitMs,
          },
          callOptions(ctx, waitMs + 15_000),
        );
        state.jobId = res.extractId;
        state.tier = EXTRACT_TIER;
        state.creditsMicrocents = Number(res.creditsUsed);
        ctx.set('X-Service-Credits', String(toCredits(res.creditsUsed)));
        ctx.set('X-Service-Credits-Remaining', String(toCredits(res.balanceMicrocents)));
        ctx.body = {
          extract_id: res.extractId,
          formats: res.formats ? toJson(ValueSchema, res.formats) : {},
          credits_used: Number(res.creditsUsed),
          model_used: res.modelUsed ?? null,
          extraction_method: res.extractionMethod,
          content_size_chars: Number(res.contentSizeChars),
          ...(res.filteredContent ? { filtered_content: res.filteredContent } : {}),
          ...(res.evidence ? { evidence: res.evidence } : {}),
          version: 'v1',
        };
      },
    }),
  ];
}
