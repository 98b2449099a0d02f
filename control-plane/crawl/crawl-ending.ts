import { toCredits } from '../../common/pricing.js';
import { applyLedgerEntry } from '../billing/ledger.js';
import type { Db } from '../jobs/job-store.js';
import { recordRemovedPages } from './change-tracking.js';
import { recordCrawlEvents } from './crawl-events.js';
import { crawlProgress, eventTarget } from './crawl-progress.js';
import { addMoney, closeCrawl, type CrawlRow } from './crawl-store.js';

/** The ledger reference of a crawl's round: what it reserved when it started (or was resumed), and refunds when that round ends. */
export function crawlReference(crawlId: string, round: number): string {
  return `crawl:${crawlId}:${round}`;
}

export interface CrawlEnding {
  status: 'completed' | 'partial' | 'failed' | 'cancelled';
  /** What happens to pages still waiting: dropped at the page limit (skipped), or cancelled. */
  leftover: 'skipped' | 'cancelled';
  error?: { code: string; message: string };
}

/** The final state of a crawl whose frontier is worked out: failed when nothing succeeded, partial when some pages failed. */
export function naturalEnding(progress: { completed: number; failed: number }): CrawlEnding {
  if (progress.completed === 0 && progress.failed === 0) {
    return {
      status: 'failed',
      leftover: 'skipped',
      error: { code: 'NOTHING_CRAWLED', message: 'No page could be crawled: robots.txt, the patterns or the budget left none' },
    };
  }
  if (progress.completed === 0) return { status: 'failed', leftover: 'skipped', error: { code: 'ALL_PAGES_FAILED', message: 'Every page of the crawl failed' } };
  return { status: progress.failed > 0 ? 'partial' : 'completed', leftover: 'skipped' };
}

/**
 * Ends a crawl inside the transaction that holds its lock: pages still
 * waiting end as `leftover`, what the round reserved and did not use is
 * refunded (once: the ledger reference is the round's), and the end is
 * recorded for the stream and the outbox. Answers the pages ended as leftover
 * and the credits refunded.
 */
export async function endCrawl(db: Db, crawl: CrawlRow, ending: CrawlEnding): Promise<{ leftover: number; refundedMicrocents: number; usedMicrocents: number }> {
  const leftover = await closeCrawl(db, crawl.id, ending.status, ending.leftover, ending.error);
  await recordRemovedPages(db, crawl.id, ending.status);
  const unused = Number(crawl.debited_microcents) - Number(crawl.used_microcents) - Number(crawl.refunded_microcents);
  let refunded = 0;
  if (unused > 0) {
    const entry = await applyLedgerEntry(db, { accountId: crawl.account_id, kind: 'refund', amountMicrocents: unused, reference: crawlReference(crawl.id, crawl.round) });
    if (entry.applied) {
      refunded = unused;
      await addMoney(db, crawl.id, 'refunded_microcents', unused);
    }
  }
  const progress = await crawlProgress(db, crawl);
  const data = {
    crawl_id: crawl.id,
    status: ending.status,
    total: progress.completed + progress.failed,
    completed: progress.completed,
    failed: progress.failed,
    credits_used: toCredits(crawl.used_microcents),
    credits_refunded: toCredits(Number(crawl.refunded_microcents) + refunded),
    ...(ending.error ? { error: ending.error } : {}),
  };
  const succeeded = ending.status === 'completed' || ending.status === 'partial';
  await recordCrawlEvents(db, eventTarget(crawl), [{ stream: 'crawl.completed', outbox: succeeded ? 'crawl.completed' : 'crawl.failed', data }]);
  return { leftover, refundedMicrocents: refunded, usedMicrocents: Number(crawl.used_microcents) };
}
