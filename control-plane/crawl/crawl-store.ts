import type pg from 'pg';
import { ACTIVE_CRAWL_STATUSES, type CrawlConfig } from '../../common/crawl-config.js';
import type { Db } from '../jobs/job-store.js';

/** A crawl as stored (crawls table). */
export interface CrawlRow {
  id: string;
  account_id: string;
  api_key_id: string | null;
  url: string;
  domain: string;
  status: string;
  config: CrawlConfig;
  max_pages: number;
  max_depth: number;
  page_limit: number;
  claimed: number;
  /** What each planned page reserves (the dearest tier of tier_plan; 0 for test keys). */
  price_microcents: number;
  tier: string;
  /** The tiers a page may be fetched at, in escalation order (control-plane/crawl/crawl-tiers.ts). */
  tier_plan: string[];
  round: number;
  debited_microcents: string;
  used_microcents: string;
  refunded_microcents: string;
  estimated_pages: number;
  total_discovered: number;
  completed: number;
  failed: number;
  cancelled: number;
  current_depth: number;
  tier_breakdown: Record<string, number>;
  budget_counts: Record<string, number>;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** A frontier row: a page of a crawl. */
export interface PageRow {
  url: string;
  depth: number;
  status: string;
  budget_key: string | null;
  status_code: number | null;
  tier: string | null;
  cost_microcents: number;
  cached: boolean;
  result_key: string | null;
  error_code: string | null;
  error_message: string | null;
  finished_at: Date | null;
}

/** A URL to add to the frontier. */
export interface FrontierUrl {
  url: string;
  depth: number;
  score: number;
  source: string;
  budgetKey: string | null;
}

export const ACTIVE = ACTIVE_CRAWL_STATUSES as readonly string[];

export async function insertCrawl(db: Db, row: Omit<CrawlRow, 'claimed' | 'round' | 'used_microcents' | 'refunded_microcents' | 'total_discovered' | 'completed' | 'failed' | 'cancelled' | 'current_depth' | 'tier_breakdown' | 'budget_counts' | 'error_code' | 'error_message' | 'created_at' | 'updated_at' | 'completed_at'> & { request_id: string }): Promise<void> {
  await db.query(
    `INSERT INTO crawls (id, account_id, api_key_id, url, domain, status, config, max_pages, max_depth, page_limit, price_microcents, tier,
                         debited_microcents, estimated_pages, request_id, tier_plan)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [
      row.id, row.account_id, row.api_key_id, row.url, row.domain, row.status, JSON.stringify(row.config), row.max_pages, row.max_depth,
      row.page_limit, row.price_microcents, row.tier, row.debited_microcents, row.estimated_pages, row.request_id, row.tier_plan,
    ],
  );
}

/** Adds URLs to a crawl's frontier, each normalised URL once; answers how many were new. */
export async function addToFrontier(db: Db, crawlId: string, urls: readonly FrontierUrl[]): Promise<number> {
  if (urls.length === 0) return 0;
  const res = await db.query(
    `INSERT INTO crawl_pages (crawl_id, url, depth, score, source, budget_key, status)
     SELECT $1, u.url, u.depth, u.score, u.source, u.budget_key, 'queued'
     FROM unnest($2::text[], $3::int[], $4::real[], $5::text[], $6::text[]) WITH ORDINALITY AS u(url, depth, score, source, budget_key, n)
     ORDER BY u.n
     ON CONFLICT (crawl_id, url) DO NOTHING`,
    [crawlId, urls.map((u) => u.url), urls.map((u) => u.depth), urls.map((u) => u.score), urls.map((u) => u.source), urls.map((u) => u.budgetKey)],
  );
  const added = res.rowCount ?? 0;
  if (added > 0) await db.query('UPDATE crawls SET total_discovered = total_discovered + $2 WHERE id = $1', [crawlId, added]);
  return added;
}

export async function lockCrawl(db: Db, crawlId: string, accountId?: string): Promise<CrawlRow | undefined> {
  const res = await db.query<CrawlRow>(
    `SELECT * FROM crawls WHERE id = $1 ${accountId ? 'AND account_id = $2' : ''} FOR UPDATE`,
    accountId ? [crawlId, accountId] : [crawlId],
  );
  return res.rows[0];
}

/** A crawl as it is now, whoever owns it (inside a transaction that holds its lock). */
export async function findCrawlById(db: Db, crawlId: string): Promise<CrawlRow | undefined> {
  const res = await db.query<CrawlRow>('SELECT * FROM crawls WHERE id = $1', [crawlId]);
  return res.rows[0];
}

export async function findCrawl(db: Db, crawlId: string, accountId: string): Promise<CrawlRow | undefined> {
  const res = await db.query<CrawlRow>('SELECT * FROM crawls WHERE id = $1 AND account_id = $2', [crawlId, accountId]);
  return res.rows[0];
}

/**
 * Active crawls that may have work to hand out or may have ended, locked for
 * this transaction; crawls another control plane holds are skipped.
 */
export async function lockActiveCrawls(client: pg.PoolClient, limit: number, onlyId?: string): Promise<CrawlRow[]> {
  const res = await client.query<CrawlRow>(
    `SELECT * FROM crawls WHERE status = ANY($1::text[]) ${onlyId ? 'AND id = $3' : ''}
     ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    onlyId ? [ACTIVE, limit, onlyId] : [ACTIVE, limit],
  );
  return res.rows;
}

/** Batches of a crawl out now, and whether any page waits in its frontier. */
export async function frontierState(db: Db, crawlId: string): Promise<{ batchesOut: number; claimedPages: number; queued: boolean }> {
  const res = await db.query<{ batches: number; pages: number; queued: boolean }>(
    `SELECT (SELECT count(DISTINCT batch_id)::int FROM crawl_pages WHERE crawl_id = $1 AND status = 'claimed') AS batches,
            (SELECT count(*)::int FROM crawl_pages WHERE crawl_id = $1 AND status = 'claimed') AS pages,
            EXISTS (SELECT 1 FROM crawl_pages WHERE crawl_id = $1 AND status = 'queued') AS queued`,
    [crawlId],
  );
  const row = res.rows[0]!;
  return { batchesOut: row.batches, claimedPages: row.pages, queued: row.queued };
}

/** The best queued pages of a crawl: highest score first, then shallowest, then in discovery order. */
export async function queuedCandidates(db: Db, crawlId: string, limit: number): Promise<Array<{ url: string; depth: number; budget_key: string | null }>> {
  const res = await db.query<{ url: string; depth: number; budget_key: string | null }>(
    `SELECT url, depth, budget_key FROM crawl_pages WHERE crawl_id = $1 AND status = 'queued'
     ORDER BY score DESC, depth, seq LIMIT $2`,
    [crawlId, limit],
  );
  return res.rows;
}

export async function markPages(db: Db, crawlId: string, urls: readonly string[], status: 'claimed' | 'skipped', batch?: { id: string; leaseMs: number }): Promise<void> {
  if (urls.length === 0) return;
  await db.query(
    `UPDATE crawl_pages SET status = $3, batch_id = $4, lease_until = CASE WHEN $4::uuid IS NULL THEN NULL ELSE now() + $5 * interval '1 millisecond' END
     WHERE crawl_id = $1 AND url = ANY($2::text[]) AND status = 'queued'`,
    [crawlId, urls, status, batch?.id ?? null, batch?.leaseMs ?? 0],
  );
}

/**
 * Claims of a crawl whose lease ran out (their worker died or the task was
 * lost) go back to its frontier; answers how many. Run under the crawl's lock.
 */
export async function requeueExpiredClaims(db: Db, crawlId: string): Promise<number> {
  const res = await db.query(
    `UPDATE crawl_pages SET status = 'queued', batch_id = NULL, lease_until = NULL
     WHERE crawl_id = $1 AND status = 'claimed' AND lease_until < now()`,
    [crawlId],
  );
  const n = res.rowCount ?? 0;
  if (n > 0) await db.query('UPDATE crawls SET claimed = claimed - $2 WHERE id = $1', [crawlId, n]);
  return n;
}

/** Pages of a batch it did not get to (the worker stopped early) go back to the frontier at once; answers how many. */
export async function releaseBatch(db: Db, crawlId: string, batchId: string): Promise<number> {
  const res = await db.query(
    `UPDATE crawl_pages SET status = 'queued', batch_id = NULL, lease_until = NULL
     WHERE crawl_id = $1 AND batch_id = $2 AND status = 'claimed'`,
    [crawlId, batchId],
  );
  return res.rowCount ?? 0;
}

/**
 * Pages of a batch that failed for a reason that may pass (a timeout, a
 * network error, an overloaded target) go back to the frontier while they
 * have retries left; answers the URLs queued again.
 */
export async function retryPages(db: Db, crawlId: string, batchId: string, urls: readonly string[], maxRetries: number): Promise<Set<string>> {
  if (urls.length === 0) return new Set();
  const res = await db.query<{ url: string }>(
    `UPDATE crawl_pages SET status = 'queued', batch_id = NULL, lease_until = NULL, retries = retries + 1
     WHERE crawl_id = $1 AND batch_id = $2 AND status = 'claimed' AND url = ANY($3::text[]) AND retries < $4
     RETURNING url`,
    [crawlId, batchId, urls, maxRetries],
  );
  return new Set(res.rows.map((r) => r.url));
}

/** A page outcome as applied to the frontier. */
export interface PageResultInput {
  url: string;
  status: 'completed' | 'failed' | 'skipped';
  statusCode: number;
  tier: string;
  costMicrocents: number;
  cached: boolean;
  resultKey: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * Records the outcomes of a batch on the pages it still holds (a page whose
 * claim expired, or that was cancelled, is left alone): each page is
 * finished once, whatever happens to reports.
 */
export async function finishPages(db: Db, crawlId: string, batchId: string, pages: readonly PageResultInput[]): Promise<Array<PageResultInput & { depth: number }>> {
  if (pages.length === 0) return [];
  const res = await db.query<{ url: string; depth: number }>(
    `UPDATE crawl_pages p SET status = r.status, status_code = r.status_code, tier = r.tier, cost_microcents = r.cost,
            cached = r.cached, result_key = r.result_key, error_code = r.error_code, error_message = r.error_message,
            finished_at = now(), lease_until = NULL
     FROM unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::int[], $8::bool[], $9::text[], $10::text[], $11::text[])
          AS r(url, status, status_code, tier, cost, cached, result_key, error_code, error_message)
     WHERE p.crawl_id = $1 AND p.url = r.url AND p.status = 'claimed' AND p.batch_id = $2
     RETURNING p.url, p.depth`,
    [
      crawlId,
      batchId,
      pages.map((p) => p.url),
      pages.map((p) => p.status),
      pages.map((p) => p.statusCode),
      pages.map((p) => p.tier),
      pages.map((p) => p.costMicrocents),
      pages.map((p) => p.cached),
      pages.map((p) => p.resultKey),
      pages.map((p) => p.errorCode),
      pages.map((p) => p.errorMessage),
    ],
  );
  const depths = new Map(res.rows.map((r) => [r.url, r.depth]));
  return pages.filter((p) => depths.has(p.url)).map((p) => ({ ...p, depth: depths.get(p.url)! }));
}

/** Counter changes of a crawl, applied in one statement. */
export interface CrawlCounts {
  completed: number;
  failed: number;
  /** Claims given back (pages robots.txt refused). */
  released: number;
  usedMicrocents: number;
  tiers: Record<string, number>;
  depth: number;
}

export async function addCounts(db: Db, crawlId: string, c: CrawlCounts): Promise<void> {
  await db.query(
    `UPDATE crawls SET completed = completed + $2, failed = failed + $3, claimed = claimed - $4, used_microcents = used_microcents + $5,
            tier_breakdown = (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
              SELECT k, sum(v)::int AS v FROM (
                SELECT key AS k, value::int AS v FROM jsonb_each_text(tier_breakdown)
                UNION ALL SELECT key, value::int FROM jsonb_each_text($6::jsonb)) t GROUP BY k) s),
            current_depth = greatest(current_depth, $7),
            status = CASE WHEN status = 'discovering' THEN 'scraping' ELSE status END,
            updated_at = now()
     WHERE id = $1`,
    [crawlId, c.completed, c.failed, c.released, c.usedMicrocents, JSON.stringify(c.tiers), c.depth],
  );
}

/** Takes pages for a batch: the crawl's claimed count and budget counts move with them. */
export async function recordClaim(db: Db, crawlId: string, taken: number, budgetCounts: Record<string, number>): Promise<void> {
  await db.query('UPDATE crawls SET claimed = claimed + $2, budget_counts = $3, updated_at = now() WHERE id = $1', [crawlId, taken, JSON.stringify(budgetCounts)]);
}

/**
 * Ends pages still waiting (queued or claimed) with `status` and sets the
 * crawl's final state, recounting its pages; answers how many pages ended so.
 */
export async function closeCrawl(db: Db, crawlId: string, crawlStatus: string, leftover: 'skipped' | 'cancelled', error?: { code: string; message: string }): Promise<number> {
  const res = await db.query(
    `UPDATE crawl_pages SET status = $2, batch_id = NULL, lease_until = NULL, finished_at = now()
     WHERE crawl_id = $1 AND status IN ('queued', 'claimed')`,
    [crawlId, leftover],
  );
  await db.query(
    `UPDATE crawls SET status = $2, completed_at = now(), updated_at = now(), error_code = $3, error_message = $4,
            (completed, failed, cancelled, claimed) = (
              SELECT count(*) FILTER (WHERE status = 'completed')::int, count(*) FILTER (WHERE status = 'failed')::int,
                     count(*) FILTER (WHERE status = 'cancelled')::int, count(*) FILTER (WHERE status IN ('completed', 'failed'))::int
              FROM crawl_pages WHERE crawl_id = $1)
     WHERE id = $1`,
    [crawlId, crawlStatus, error?.code ?? null, error?.message ?? null],
  );
  return res.rowCount ?? 0;
}

/** Money moved on a crawl's row after a ledger entry. */
export async function addMoney(db: Db, crawlId: string, field: 'debited_microcents' | 'refunded_microcents', microcents: number): Promise<void> {
  await db.query(`UPDATE crawls SET ${field} = ${field} + $2, updated_at = now() WHERE id = $1`, [crawlId, microcents]);
}

/**
 * A resumed crawl: its failed and cancelled pages queued again, counters
 * recounted, a new round with a larger page allowance for new URLs.
 */
export async function reopenCrawl(db: Db, crawlId: string, extraPages: number): Promise<number> {
  const res = await db.query(
    `UPDATE crawl_pages SET status = 'queued', batch_id = NULL, lease_until = NULL, finished_at = NULL, error_code = NULL, error_message = NULL
     WHERE crawl_id = $1 AND status IN ('failed', 'cancelled')`,
    [crawlId],
  );
  await db.query(
    `UPDATE crawls SET status = 'scraping', round = round + 1, completed_at = NULL, error_code = NULL, error_message = NULL,
            page_limit = page_limit + $2, updated_at = now(),
            (completed, failed, cancelled, claimed) = (
              SELECT count(*) FILTER (WHERE status = 'completed')::int, 0, 0, count(*) FILTER (WHERE status = 'completed')::int
              FROM crawl_pages WHERE crawl_id = $1)
     WHERE id = $1`,
    [crawlId, extraPages],
  );
  return res.rowCount ?? 0;
}

/** Finished pages of a crawl, in discovery order, a page at a time. */
export async function finishedPages(db: Db, crawlId: string, limit: number, offset: number): Promise<{ rows: PageRow[]; total: number }> {
  const res = await db.query<PageRow & { total: number }>(
    `SELECT url, depth, status, budget_key, status_code, tier, cost_microcents, cached, result_key, error_code, error_message, finished_at,
            count(*) OVER ()::int AS total
     FROM crawl_pages WHERE crawl_id = $1 AND status IN ('completed', 'failed') ORDER BY seq LIMIT $2 OFFSET $3`,
    [crawlId, limit, offset],
  );
  const total = res.rows[0]?.total ?? (offset > 0 ? (await finishedCount(db, crawlId)) : 0);
  return { rows: res.rows, total };
}

async function finishedCount(db: Db, crawlId: string): Promise<number> {
  const res = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM crawl_pages WHERE crawl_id = $1 AND status IN ('completed', 'failed')`, [crawlId]);
  return res.rows[0]!.n;
}

export interface CrawlListFilter {
  limit: number;
  offset: number;
  status?: string;
  domain?: string;
  dateFrom?: string;
  dateTo?: string;
  sort: 'created_at' | 'status';
  order: 'asc' | 'desc';
}

export async function listCrawls(db: Db, accountId: string, f: CrawlListFilter): Promise<{ rows: CrawlRow[]; total: number }> {
  const where = ['account_id = $1'];
  const values: unknown[] = [accountId];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    where.push(sql.replace('?', `$${values.length}`));
  };
  if (f.status) add('status = ?', f.status);
  if (f.domain) add(`domain ILIKE '%' || ? || '%'`, f.domain.replace(/[\\%_]/g, (c) => `\\${c}`));
  if (f.dateFrom) add('created_at >= ?::date', f.dateFrom);
  if (f.dateTo) add(`created_at < ?::date + interval '1 day'`, f.dateTo);
  const direction = f.order === 'asc' ? 'ASC' : 'DESC';
  const orderBy = f.sort === 'status' ? `status ${direction}, created_at ${direction}, id ${direction}` : `created_at ${direction}, id ${direction}`;
  values.push(f.limit, f.offset);
  const res = await db.query<CrawlRow & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM crawls WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  return { rows: res.rows, total: res.rows[0]?.total ?? 0 };
}

export interface StoredEvent {
  seq: string;
  event: string;
  data: Record<string, unknown>;
}

export async function eventsAfter(db: Db, crawlId: string, afterSeq: bigint, limit: number): Promise<StoredEvent[]> {
  const res = await db.query<StoredEvent>('SELECT seq, event, data FROM crawl_events WHERE crawl_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
    crawlId,
    afterSeq.toString(),
    limit,
  ]);
  return res.rows;
}

/** The last stream event id a crawl gave out, and its status. */
export async function eventSeqOf(db: Db, crawlId: string): Promise<{ event_seq: string; status: string }> {
  const res = await db.query<{ event_seq: string; status: string }>('SELECT event_seq, status FROM crawls WHERE id = $1', [crawlId]);
  return res.rows[0]!;
}
