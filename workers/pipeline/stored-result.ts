import { create, fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { ScrapeResultSchema, type ScrapeResult } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { PipelineOutput } from './index.js';
import { toSafeJson } from './safe-json.js';

/** The pipeline's output as the result body kept in Redis. */
export function toStoredResult(
  output: PipelineOutput,
  fetched: { url: string; finalUrl: string; statusCode: number; headers: Record<string, string>; responseTimeMs: number; sizeBytes: number; rawHtml?: string | undefined },
  opts: { contentAsFormats: boolean },
): ScrapeResult {
  return create(ScrapeResultSchema, {
    url: fetched.url,
    finalUrl: fetched.finalUrl,
    statusCode: fetched.statusCode,
    // Pipeline values can hold numbers JSON cannot write back (a JSON-LD "price": 1e999 parses to Infinity).
    content: fromJson(ValueSchema, toSafeJson(opts.contentAsFormats ? output.formats : output.content)),
    title: output.title,
    metadata: toSafeJson(output.metadata),
    headers: fetched.headers,
    cached: false,
    responseTimeMs: BigInt(fetched.responseTimeMs),
    sizeBytes: BigInt(fetched.sizeBytes),
    filteredContent: toSafeJson(output.filteredContent),
    evidence: toSafeJson(output.evidence),
    extractionMethod: output.extractionMethod,
    rawHtml: fetched.rawHtml,
    modelUsed: output.modelUsed,
  });
}
