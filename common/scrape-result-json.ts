import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { ScrapeResult } from '../proto/gen/trawl/v1/scrape_pb.js';

/** A scrape result as the public API answers it (SPEC 2.1): the one rendering, shared by responses and crawl result files. */
export function presentResult(result: ScrapeResult) {
  return {
    url: result.url,
    status_code: result.statusCode,
    content: result.content ? toJson(ValueSchema, result.content) : null,
    title: result.title,
    metadata: result.metadata ?? {},
    headers: result.headers,
    cached: result.cached,
    response_time_ms: Number(result.responseTimeMs),
    size_bytes: Number(result.sizeBytes),
    screenshot_url: result.screenshotUrl ?? null,
    pdf_url: result.pdfUrl ?? null,
    ...(result.filteredContent ? { filtered_content: result.filteredContent } : {}),
    extraction_method: result.extractionMethod,
    ...(result.modelUsed !== undefined ? { model_used: result.modelUsed } : {}),
    ...(result.rawHtml !== undefined ? { raw_html: result.rawHtml } : {}),
    final_url: result.finalUrl,
  };
}
