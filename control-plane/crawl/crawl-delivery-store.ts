import type { CrawlConfig } from '../../common/crawl-config.js';
import { ACTIVE_CRAWL_STATUSES } from '../../common/crawl-config.js';
import type { Db } from '../jobs/job-store.js';
import type { PageRow } from './crawl-store.js';

/** Where a crawl's finished pages are written: Trawl's bucket (storage s3/r2), or the caller's `output`. */
export type DeliveryTarget = 'storage' | 'output';

/** A crawl that may have pages still to write (taken in random order, so crawls whose writes keep failing never starve the rest). */
export interface OpenCrawl {
  id: string;
  account_id: string;
  status: string;
  config: CrawlConfig;
  output_secret_sealed: Buffer | null;
}

/** A part: the pages it holds are fixed when it is cut. */
export interface PartRow {
  part: number;
  pages: number;
  object_key: string | null;
  bytes: string;
  status: 'pending' | 'written' | 'failed';
  attempts: number;
  last_error: string | null;
  written_at: Date | null;
  expires_at: Date | null;
}

const ACTIVE_SQL = ACTIVE_CRAWL_STATUSES.map((s) => `'${s}'`).join(', ');

/** Finished pages of a crawl not yet in a part of `target` (each finish of a page once). */
const UNASSIGNED = `
  FROM crawl_pages p
  WHERE p.crawl_id = $1 AND p.status IN ('completed', 'failed') AND p.finished_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM crawl_result_pages d WHERE d.crawl_id = p.crawl_id AND d.target = $2 AND d.url = p.url AND d.finished_at = p.finished_at)`;

/** Marks a crawl as having pages to write, when it has a target; its sealed output secret is kept with it. */
export async function openDelivery(db: Db, crawlId: string, outputSecretSealed: Buffer | null = null): Promise<void> {
  await db.query(
    `UPDATE crawls SET delivery_open = true, output_secret_sealed = coalesce($2, output_secret_sealed)
     WHERE id = $1 AND (config->>'storage' IN ('s3', 'r2') OR jsonb_typeof(config->'output') = 'object')`,
    [crawlId, outputSecretSealed],
  );
}

export async function openCrawls(db: Db, limit: number): Promise<OpenCrawl[]> {
  const res = await db.query<OpenCrawl>(
    'SELECT id, account_id, status, config, output_secret_sealed FROM crawls WHERE delivery_open ORDER BY random() LIMIT $1',
    [limit],
  );
  return res.rows;
}

/** Ends the crawl's delivery once it has ended and every finish is written (or given up, for output). */
export async function closeDeliveryIfDone(db: Db, crawlId: string, targets: readonly DeliveryTarget[]): Promise<void> {
  await db.query(
    `UPDATE crawls c SET delivery_open = false
     WHERE c.id = $1 AND c.status NOT IN (${ACTIVE_SQL})
       AND NOT EXISTS (SELECT 1 FROM crawl_result_parts r WHERE r.crawl_id = $1 AND r.status = 'pending')
       AND NOT EXISTS (SELECT 1 FROM unnest($2::text[]) AS t(target), LATERAL (SELECT 1 ${UNASSIGNED.replaceAll('$2', 't.target')} LIMIT 1) u)`,
    [crawlId, targets],
  );
}

/** How many finishes wait for a part of `target`, and since when. */
export async function waitingPages(db: Db, crawlId: string, target: DeliveryTarget): Promise<{ n: number; oldest: Date | null }> {
  const res = await db.query<{ n: number; oldest: Date | null }>(`SELECT count(*)::int AS n, min(p.finished_at) AS oldest ${UNASSIGNED}`, [crawlId, target]);
  return res.rows[0]!;
}

/** Cuts the next part of `target` from up to `limit` waiting finishes, oldest first; answers its number, or null when none wait. */
export async function cutPart(db: Db, crawlId: string, target: DeliveryTarget, limit: number): Promise<number | null> {
  const res = await db.query<{ part: number }>(
    `WITH pages AS (SELECT p.url, p.finished_at ${UNASSIGNED} ORDER BY p.finished_at, p.url LIMIT $3),
     part AS (
       INSERT INTO crawl_result_parts (crawl_id, target, part, pages)
       SELECT $1, $2, coalesce((SELECT max(part) FROM crawl_result_parts WHERE crawl_id = $1 AND target = $2), 0) + 1, (SELECT count(*) FROM pages)
       WHERE EXISTS (SELECT 1 FROM pages)
       RETURNING part
     ), assigned AS (
       INSERT INTO crawl_result_pages (crawl_id, target, url, finished_at, part)
       SELECT $1, $2, pages.url, pages.finished_at, part.part FROM pages, part
     )
     SELECT part FROM part`,
    [crawlId, target, limit],
  );
  return res.rows[0]?.part ?? null;
}

/** Parts of `target` due for an attempt, oldest first, with the attempts made so far. */
export async function dueParts(db: Db, crawlId: string, target: DeliveryTarget): Promise<Array<{ part: number; attempts: number }>> {
  const res = await db.query<{ part: number; attempts: number }>(
    `SELECT part, attempts FROM crawl_result_parts WHERE crawl_id = $1 AND target = $2 AND status = 'pending' AND next_attempt_at <= now() ORDER BY part`,
    [crawlId, target],
  );
  return res.rows;
}

/** The pages of a part, in the order they finished. */
export async function partPages(db: Db, crawlId: string, target: DeliveryTarget, part: number): Promise<PageRow[]> {
  const res = await db.query<PageRow>(
    `SELECT p.url, p.depth, p.status, p.budget_key, p.status_code, p.tier, p.cost_microcents, p.cached, p.result_key, p.error_code, p.error_message, p.finished_at
     FROM crawl_result_pages d JOIN crawl_pages p ON p.crawl_id = d.crawl_id AND p.url = d.url
     WHERE d.crawl_id = $1 AND d.target = $2 AND d.part = $3 ORDER BY d.finished_at, d.url`,
    [crawlId, target, part],
  );
  return res.rows;
}

export async function partWritten(db: Db, crawlId: string, target: DeliveryTarget, part: number, written: { objectKey: string | null; bytes: number; expiresAt: Date | null }): Promise<void> {
  await db.query(
    `UPDATE crawl_result_parts SET status = 'written', object_key = $4, bytes = $5, expires_at = $6, written_at = now(), attempts = attempts + 1, last_error = NULL
     WHERE crawl_id = $1 AND target = $2 AND part = $3`,
    [crawlId, target, part, written.objectKey, written.bytes, written.expiresAt],
  );
}

/** Records a failed attempt: tried again after `retryInMs`, or failed for good when that is null. */
export async function partAttemptFailed(db: Db, crawlId: string, target: DeliveryTarget, part: number, error: string, retryInMs: number | null): Promise<void> {
  await db.query(
    `UPDATE crawl_result_parts SET attempts = attempts + 1, last_error = $4,
       status = CASE WHEN $5::double precision IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = now() + make_interval(secs => coalesce($5::double precision, 0) / 1000)
     WHERE crawl_id = $1 AND target = $2 AND part = $3`,
    [crawlId, target, part, error, retryInMs],
  );
}

export async function partsOf(db: Db, crawlId: string, target: DeliveryTarget): Promise<PartRow[]> {
  const res = await db.query<PartRow>(
    `SELECT part, pages, object_key, bytes, status, attempts, last_error, written_at, expires_at
     FROM crawl_result_parts WHERE crawl_id = $1 AND target = $2 ORDER BY part`,
    [crawlId, target],
  );
  return res.rows;
}

/** The crawl's webhook_stream deliveries by outcome (sent, still trying, given up) and the last error of a failed one. */
export async function streamDeliveryCounts(db: Db, crawl: { id: string; account_id: string }, eventType: string): Promise<{ success: number; pending: number; failed: number; last_error: string | null }> {
  const res = await db.query<{ success: number; pending: number; failed: number; last_error: string | null }>(
    `SELECT count(*) FILTER (WHERE d.status = 'success')::int AS success, count(*) FILTER (WHERE d.status IN ('pending', 'retrying'))::int AS pending,
            count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
            (array_agg(d.error_message ORDER BY d.updated_at DESC) FILTER (WHERE d.error_message IS NOT NULL))[1] AS last_error
     FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id
     WHERE d.account_id = $2 AND d.event_type = $3 AND d.subscription_id IS NULL AND e.payload->>'crawl_id' = $1::text`,
    [crawl.id, crawl.account_id, eventType],
  );
  return res.rows[0]!;
}
