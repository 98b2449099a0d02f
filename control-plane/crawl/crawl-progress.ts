import { createHash } from 'node:crypto';
import { toCredits } from '../../common/pricing.js';
import type { Db } from '../jobs/job-store.js';
import type { CrawlEventTarget } from './crawl-events.js';
import type { CrawlRow } from './crawl-store.js';

/** Where a crawl stands, as its status, list item, progress events and end events tell it. */
export interface CrawlProgress {
  total: number;
  completed: number;
  failed: number;
  inProgress: number;
  cancelled: number;
}

/**
 * Counts a crawl's pages: `total` is what it has done, is doing and will
 * still do (queued pages within its page allowance), so it reaches
 * completed + failed when the crawl ends.
 */
export async function crawlProgress(db: Db, crawl: Pick<CrawlRow, 'id' | 'page_limit'>): Promise<CrawlProgress> {
  const res = await db.query<{ completed: number; failed: number; claimed: number; queued: number; cancelled: number }>(
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'failed')::int AS failed,
            count(*) FILTER (WHERE status = 'claimed')::int AS claimed, count(*) FILTER (WHERE status = 'queued')::int AS queued,
            count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
     FROM crawl_pages WHERE crawl_id = $1`,
    [crawl.id],
  );
  const r = res.rows[0]!;
  const taken = r.completed + r.failed + r.claimed;
  return {
    completed: r.completed,
    failed: r.failed,
    inProgress: r.claimed,
    cancelled: r.cancelled,
    total: taken + Math.max(0, Math.min(r.queued, crawl.page_limit - taken)),
  };
}

/** The id a crawl's page is known by in events and results: stable for the crawl and URL. */
export function pageJobId(crawlId: string, url: string): string {
  const h = createHash('sha256').update(crawlId).update('\n').update(url).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

export function eventTarget(crawl: Pick<CrawlRow, 'id' | 'account_id' | 'config'>): CrawlEventTarget {
  const { webhook, webhook_url: webhookUrl } = crawl.config;
  const requestWebhook = webhook ? { ...webhook } : webhookUrl ? { url: webhookUrl, events: ['crawl.completed'] } : null;
  return { id: crawl.id, account_id: crawl.account_id, requestWebhook };
}

/** The data of crawl.progress (SPEC 6.5). */
export function progressData(crawl: Pick<CrawlRow, 'id' | 'current_depth'>, p: CrawlProgress, usedMicrocents: number | string) {
  return {
    crawl_id: crawl.id,
    completed: p.completed,
    failed: p.failed,
    total: p.total,
    credits_used: toCredits(usedMicrocents),
    current_depth: crawl.current_depth,
  };
}
