import { create, fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { ScrapeResultSchema, type ScrapeResult } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { PipelineOutput } from './index.js';

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
    content: fromJson(ValueSchema, opts.contentAsFormats ? output.formats : output.content),
    title: output.title,
    metadata: output.metadata,
    headers: fetched.headers,
    cached: false,
    responseTimeMs: BigInt(fetched.responseTimeMs),
    sizeBytes: BigInt(fetched.sizeBytes),
    filteredContent: output.filteredContent,
    evidence: output.evidence,
    extractionMethod: output.extractionMethod,
    rawHtml: fetched.rawHtml,
    modelUsed: output.modelUsed,
  });
}
