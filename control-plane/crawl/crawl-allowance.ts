import type { CrawlConfig } from '../../common/crawl-config.js';
import { toMicrocents } from '../../common/pricing.js';
import type { Db } from '../jobs/job-store.js';

/** The pages a crawl plans: max_pages, or fewer when every page falls under a counted budget pattern. */
export function plannedPages(config: CrawlConfig): number {
  const budget = config.budget;
  const capped = budget && !('*' in budget) ? Object.values(budget).reduce((a, b) => a + b, 0) : Infinity;
  return Math.max(1, Math.min(config.max_pages, capped));
}

/** The pages max_credits covers at `price` a page (the dearest planned tier); without max_credits or a price, no bound. */
export function pagesCovered(config: CrawlConfig, price: number): number {
  const maxCredits = config.cost_controls?.max_credits;
  return maxCredits === undefined || price <= 0 ? Infinity : Math.floor(toMicrocents(maxCredits) / price);
}

/**
 * Widens a crawl's page allowance (`page_limit`) with what its reservation
 * has left. A crawl reserves each page at its dearest planned tier, so under
 * max_credits it starts with fewer pages than it plans; a page that cost less
 * (fetched at a cheaper tier, answered from the cache, failed unpaid) leaves
 * the difference reserved. Once the money not yet spent, less the dearest
 * price of every page still out, covers more pages than the allowance has
 * left, the allowance grows to them, up to the planned pages: the crawl
 * never takes a page its reservation could not pay at the dearest tier, so
 * it never spends past max_credits. Runs under the crawl's lock, after a
 * report's counts; answers the new allowance when it grew.
 */
export async function widenAllowance(db: Db, crawlId: string, planned: number): Promise<number | null> {
  const res = await db.query<{ page_limit: number }>(
    `WITH room AS (
       SELECT id, claimed + floor((debited_microcents - used_microcents - refunded_microcents
                                   - (claimed - completed - failed)::bigint * price_microcents)::numeric / price_microcents)::int AS affordable
       FROM crawls WHERE id = $1 AND price_microcents > 0 AND page_limit < $2
     )
     UPDATE crawls SET page_limit = least($2, room.affordable), updated_at = now()
     FROM room WHERE crawls.id = room.id AND room.affordable > crawls.page_limit
     RETURNING crawls.page_limit`,
    [crawlId, planned],
  );
  return res.rows[0]?.page_limit ?? null;
}

/**
 * The pages a resumed round reserves: the allowance left after the completed
 * pages. Under max_credits, the pages still planned as far as max_credits
 * covers them at the dearest tier (the allowance set to match), so that this
 * round, too, takes more as its pages cost less.
 */
export async function resumedAllowance(db: Db, crawl: { id: string; page_limit: number; completed: number; price_microcents: number; config: CrawlConfig }): Promise<number> {
  const covered = pagesCovered(crawl.config, crawl.price_microcents);
  if (covered === Infinity) return Math.max(0, crawl.page_limit - crawl.completed);
  const pages = Math.max(0, Math.min(Math.max(crawl.page_limit, plannedPages(crawl.config)) - crawl.completed, covered));
  if (crawl.completed + pages !== crawl.page_limit) {
    await db.query('UPDATE crawls SET page_limit = $2, updated_at = now() WHERE id = $1', [crawl.id, crawl.completed + pages]);
  }
  return pages;
}
