import type Router from '@koa/router';
import type { JsonObject } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { Context } from 'koa';
import { TrawlError } from '../../common/errors.js';
import { fromConnectError } from '../../common/rpc-errors.js';
import type { ControlPlane } from '../control-plane-client.js';
import { refuseNulCharacters, validationError } from '../http-errors.js';
import { ExtractRequest, MAX_EXTRACT_CONTENT_BYTES } from '../schemas/extract.js';
import { callOptions } from './call-options.js';
import { ragOptions, SYNC_DEADLINE_MS } from './scrape.js';

export function registerExtractRoutes(router: Router, deps: { controlPlane: ControlPlane }) {
  router.post('/api/v1/extract', async (ctx: Context) => {
    ctx.state.trawl.route = 'POST /api/v1/extract';
    // The content goes to Redis and the pipeline, never to Postgres, so it may hold NUL.
    refuseNulCharacters(ctx.request.body, ['content']);
    const parsed = ExtractRequest.safeParse(ctx.request.body ?? {});
    if (!parsed.success) throw validationError(parsed.error, 'body');
    const input = parsed.data;
    if (input.content.trim() === '') throw new TrawlError('CONTENT_BLANK', 'content must not be blank');
    const bytes = Buffer.byteLength(input.content, 'utf8');
    if (bytes > MAX_EXTRACT_CONTENT_BYTES) {
      throw new TrawlError('CONTENT_OVER_LIMIT', 'content is over the 5 MB limit', { size_bytes: bytes, limit_bytes: MAX_EXTRACT_CONTENT_BYTES });
    }
    if (input.source_url) ctx.state.trawl.targetUrl = input.source_url;
    const waitMs = Math.max(1_000, SYNC_DEADLINE_MS - (Date.now() - ctx.state.trawl.startedAt));
    let res;
    try {
      res = await deps.controlPlane.extract.extract(
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
          requestId: ctx.state.trawl.requestId,
          waitMs,
        },
        callOptions(ctx, waitMs + 15_000),
      );
    } catch (err) {
      const failure = fromConnectError(err);
      // A failed extraction that was admitted is refunded in full; SPEC 7.5 puts that on the error body.
      const extractId = failure.details?.['extract_id'];
      if (typeof extractId === 'string') {
        ctx.state.trawl.jobId = extractId;
        ctx.state.extraErrorFields = {
          billing: { credits_used: 0, refunded: true, reason: failure.code },
          extract_id: extractId,
          version: 'v1',
        };
      }
      throw failure;
    }
    ctx.state.trawl.jobId = res.extractId;
    ctx.state.trawl.tier = '3.5';
    ctx.state.trawl.creditsMicrocents = Number(res.creditsUsed);
    ctx.set('X-Service-Credits', String(Number(res.creditsUsed) / 200));
    ctx.set('X-Service-Credits-Remaining', String(Number(res.balanceMicrocents) / 200));
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
  });
}
