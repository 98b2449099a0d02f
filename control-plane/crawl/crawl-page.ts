import { create, type JsonObject } from '@bufbuild/protobuf';
import { toCredits } from '../../common/pricing.js';
import { CrawlPageSchema, type CrawlPage } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { pageJobId } from './crawl-progress.js';
import type { PageRow } from './crawl-store.js';

/**
 * A finished page with its stored result (empty when it failed or its result
 * is past retention) and, in a crawl with change_tracking, its change, as
 * status and result files give it.
 */
export function crawlPageOf(crawlId: string, r: PageRow, stored: Uint8Array | null | undefined, change?: JsonObject): CrawlPage {
  return create(CrawlPageSchema, {
    jobId: pageJobId(crawlId, r.url),
    url: r.url,
    depth: r.depth,
    status: r.status,
    statusCode: r.status_code ?? 0,
    tierUsed: r.tier ?? '',
    creditsUsed: toCredits(r.cost_microcents),
    errorCode: r.error_code ?? '',
    errorMessage: r.error_message ?? '',
    cached: r.cached,
    result: stored ?? new Uint8Array(),
    completedAt: r.finished_at?.toISOString() ?? '',
    ...(change ? { changeTracking: change } : {}),
  });
}
