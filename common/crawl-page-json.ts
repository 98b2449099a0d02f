import { fromBinary } from '@bufbuild/protobuf';
import type { CrawlPage } from '../proto/gen/trawl/v1/crawl_pb.js';
import { ScrapeResultSchema } from '../proto/gen/trawl/v1/scrape_pb.js';
import { presentResult } from './scrape-result-json.js';

/**
 * A finished crawl page as the public API answers it: an element of the
 * status route's `results`, and a line of the crawl's JSONL result files.
 */
export function presentCrawlPage(p: CrawlPage) {
  const result = p.result.length > 0 ? presentResult(fromBinary(ScrapeResultSchema, p.result)) : null;
  return {
    job_id: p.jobId,
    url: p.url,
    depth: p.depth,
    status: p.status as 'completed' | 'failed',
    status_code: p.statusCode || null,
    tier_used: p.tierUsed || null,
    credits_used: p.creditsUsed,
    cached: p.cached,
    error: p.errorCode ? { code: p.errorCode, message: p.errorMessage } : null,
    result,
    completed_at: p.completedAt,
    change_tracking: p.changeTracking ?? null,
  };
}
