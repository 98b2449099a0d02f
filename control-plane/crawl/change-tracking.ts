import { fromBinary, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { Redis } from 'ioredis';
import type { CrawlConfig } from '../../common/crawl-config.js';
import { TrawlError } from '../../common/errors.js';
import { CHANGE_TRACKING_LIMITS } from '../../common/limits.js';
import { CHANGE_DIFF_PRICES } from '../../common/pricing.js';
import type { CrawlBatchReport } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { ScrapeResultSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { Db } from '../jobs/job-store.js';
import { contentDiff, fieldChanges } from './change-diff.js';
import { changeMaterial, type ChangeMaterial } from './change-material.js';
import { ACTIVE } from './crawl-store.js';

export type ChangeMode = 'content' | 'structured';
export type ChangeStatus = 'new' | 'changed' | 'unchanged' | 'removed';

/** A crawl's change tracking as resolved when it started (crawl_change_tracking). */
export interface ChangeTracking {
  crawlId: string;
  accountId: string;
  trackingId: string;
  mode: ChangeMode;
  includeDiff: boolean;
  /** Added to the price of each page compared (include_diff); 0 otherwise and for test keys. */
  surchargeMicrocents: number;
  previousCrawlId: string | null;
}

/** A crawl's change tracking settings before it is recorded. */
export type ChangeTrackingRequest = Pick<ChangeTracking, 'trackingId' | 'mode' | 'includeDiff' | 'surchargeMicrocents'>;

/**
 * The tracking id a crawl's pages are kept under when the request names
 * none: the start URL's host, lower-case, without a leading `www.`, with its
 * port when it is not the scheme's default (the same site the crawl covers).
 */
export function defaultTrackingId(startUrl: string): string {
  return new URL(startUrl).host.toLowerCase().replace(/^www\./, '');
}

/** The change tracking a crawl request asks for; null when it is off. Test keys pay no surcharge, as they pay nothing. */
export function changeTrackingRequest(config: CrawlConfig, startUrl: string, free: boolean): ChangeTrackingRequest | null {
  const ct = config.change_tracking;
  if (!ct?.enabled) return null;
  const mode = ct.mode ?? 'content';
  const includeDiff = ct.include_diff ?? false;
  return {
    trackingId: ct.tracking_id ?? defaultTrackingId(startUrl),
    mode,
    includeDiff,
    surchargeMicrocents: includeDiff && !free ? CHANGE_DIFF_PRICES[mode] : 0,
  };
}

/**
 * One crawl at a time per account and tracking id: the baselines it reads
 * and writes are then those of one crawl. Another crawl of the account with
 * the id still active answers 409. Runs under a transaction-scoped lock on
 * the account and id, so two crawls starting together cannot both pass.
 */
async function assertNoActiveTwin(db: Db, crawlId: string, accountId: string, trackingId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))`, [accountId, trackingId]);
  const res = await db.query<{ id: string }>(
    `SELECT c.id FROM crawl_change_tracking t JOIN crawls c ON c.id = t.crawl_id
     WHERE t.account_id = $1 AND t.tracking_id = $2 AND c.id <> $3 AND c.status = ANY($4::text[]) LIMIT 1`,
    [accountId, trackingId, crawlId, ACTIVE],
  );
  if (res.rows[0]) {
    throw new TrawlError('CONFLICT', `Crawl ${res.rows[0].id} with tracking_id "${trackingId}" is still running; one crawl per tracking_id runs at a time`, {
      tracking_id: trackingId,
      crawl_id: res.rows[0].id,
    });
  }
}

/** Records a starting crawl's change tracking (in the transaction that inserts the crawl) with the latest earlier crawl of its tracking id. */
export async function registerChangeTracking(db: Db, crawlId: string, accountId: string, req: ChangeTrackingRequest): Promise<void> {
  await assertNoActiveTwin(db, crawlId, accountId, req.trackingId);
  await db.query(
    `INSERT INTO crawl_change_tracking (crawl_id, account_id, tracking_id, mode, include_diff, surcharge_microcents, previous_crawl_id, crawl_created_at)
     SELECT $1, $2, $3, $4, $5, $6,
            (SELECT crawl_id FROM crawl_change_tracking WHERE account_id = $2 AND tracking_id = $3 ORDER BY crawl_created_at DESC LIMIT 1),
            c.created_at
     FROM crawls c WHERE c.id = $1`,
    [crawlId, accountId, req.trackingId, req.mode, req.includeDiff, req.surchargeMicrocents],
  );
}

interface TrackingRow {
  crawl_id: string;
  account_id: string;
  tracking_id: string;
  mode: ChangeMode;
  include_diff: boolean;
  surcharge_microcents: number;
  previous_crawl_id: string | null;
}

export async function changeTrackingOf(db: Db, crawlId: string): Promise<ChangeTracking | undefined> {
  const res = await db.query<TrackingRow>('SELECT * FROM crawl_change_tracking WHERE crawl_id = $1', [crawlId]);
  const r = res.rows[0];
  if (!r) return undefined;
  return {
    crawlId: r.crawl_id,
    accountId: r.account_id,
    trackingId: r.tracking_id,
    mode: r.mode,
    includeDiff: r.include_diff,
    surchargeMicrocents: r.surcharge_microcents,
    previousCrawlId: r.previous_crawl_id,
  };
}

/** A resumed crawl with change tracking obeys the same one-at-a-time rule as a starting one. */
export async function assertResumable(db: Db, crawlId: string): Promise<void> {
  const tracking = await changeTrackingOf(db, crawlId);
  if (tracking) await assertNoActiveTwin(db, crawlId, tracking.accountId, tracking.trackingId);
}

/** A batch report of a tracked crawl with the change material of its pages that have a stored result. */
export interface TrackedReport {
  tracking: ChangeTracking;
  material: Map<string, ChangeMaterial>;
}

/**
 * Reads the stored results of a report's completed pages and derives their
 * change material, before the report's transaction (so the crawl's lock is
 * not held over Redis). Null when the crawl does not track changes.
 */
export async function prepareTrackedReport(db: Db, redis: Redis, report: CrawlBatchReport): Promise<TrackedReport | null> {
  const tracking = await changeTrackingOf(db, report.crawlId);
  if (!tracking) return null;
  const pages = report.pages.filter((p) => p.ok && p.resultKey);
  const stored = pages.length > 0 ? await redis.mgetBuffer(...pages.map((p) => p.resultKey)) : [];
  const material = new Map<string, ChangeMaterial>();
  pages.forEach((p, i) => {
    const bytes = stored[i];
    if (!bytes) return;
    const result = fromBinary(ScrapeResultSchema, bytes);
    material.set(
      p.url,
      changeMaterial({
        content: result.content ? toJson(ValueSchema, result.content) : null,
        title: result.title,
        metadata: result.metadata ?? {},
        filteredContent: result.filteredContent,
      }),
    );
  });
  return { tracking, material };
}

/**
 * The diff surcharge a completed page pays on top of its tier: the crawl's,
 * when the page was compared; nothing when the crawl does not track changes
 * or the page could not be compared (its stored result was gone).
 */
export function diffSurcharge(tracked: TrackedReport | null, url: string): number {
  return tracked?.material.has(url) ? tracked.tracking.surchargeMicrocents : 0;
}

/** A page's change as events carry it (no diff: that can be large). */
export interface PageChangeEvent {
  status: ChangeStatus;
  content_hash: string | null;
  previous_hash: string | null;
}

interface BaselineRow {
  url: string;
  crawl_id: string;
  scraped_at: Date;
  content_hash: string;
  fields_hash: string;
  content: string | null;
  fields: JsonObject;
}

function diffOf(tracking: ChangeTracking, base: BaselineRow, m: ChangeMaterial): JsonValue {
  if (tracking.mode === 'structured') return fieldChanges(base.fields, m.fields) as unknown as JsonValue;
  return base.content === null ? null : contentDiff(base.content, m.content);
}

/** Rows as one array per field, in `fields` order: the parameters of an `unnest` insert. */
function columns<R, K extends keyof R>(rows: readonly R[], fields: readonly K[]): Array<Array<R[K]>> {
  return fields.map((f) => rows.map((r) => r[f]));
}

/**
 * Compares pages that completed (in the report's transaction) with their
 * baselines: records each page's change once and makes this crawl's
 * content the page's baseline, unless a crawl started later already wrote
 * it. Answers each page's change for its events.
 */
export async function recordPageChanges(db: Db, tracked: TrackedReport, urls: readonly string[]): Promise<Map<string, PageChangeEvent>> {
  const { tracking } = tracked;
  const pages = urls.filter((u) => tracked.material.has(u)).map((url) => ({ url, m: tracked.material.get(url)! }));
  const changes = new Map<string, PageChangeEvent>();
  if (pages.length === 0) return changes;
  const res = await db.query<BaselineRow>(
    `SELECT url, crawl_id, scraped_at, content_hash, fields_hash, content, fields FROM change_baselines
     WHERE account_id = $1 AND tracking_id = $2 AND url = ANY($3::text[]) FOR UPDATE`,
    [tracking.accountId, tracking.trackingId, pages.map((p) => p.url)],
  );
  const baselines = new Map(res.rows.map((r) => [r.url, r]));
  const hashOf = (x: { contentHash: string; fieldsHash: string }) => (tracking.mode === 'content' ? x.contentHash : x.fieldsHash);
  const rows = pages.map(({ url, m }) => {
    const base = baselines.get(url);
    const previousHash = base ? hashOf({ contentHash: base.content_hash, fieldsHash: base.fields_hash }) : null;
    const status: ChangeStatus = !base ? 'new' : previousHash === hashOf(m) ? 'unchanged' : 'changed';
    changes.set(url, { status, content_hash: hashOf(m), previous_hash: previousHash });
    return {
      url,
      status,
      previousCrawlId: base?.crawl_id ?? null,
      previousScrapedAt: base?.scraped_at.toISOString() ?? null,
      hash: hashOf(m),
      previousHash,
      diff: tracking.includeDiff && base ? JSON.stringify(diffOf(tracking, base, m)) : null,
    };
  });
  await db.query(
    `INSERT INTO crawl_page_changes (crawl_id, url, status, previous_crawl_id, previous_scraped_at, content_hash, previous_hash, diff)
     SELECT $1, r.url, r.status, r.previous_crawl_id, r.previous_scraped_at, r.hash, r.previous_hash, r.diff
     FROM unnest($2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::text[], $7::text[], $8::jsonb[])
          AS r(url, status, previous_crawl_id, previous_scraped_at, hash, previous_hash, diff)
     ON CONFLICT (crawl_id, url) DO UPDATE SET status = EXCLUDED.status, previous_crawl_id = EXCLUDED.previous_crawl_id,
       previous_scraped_at = EXCLUDED.previous_scraped_at, content_hash = EXCLUDED.content_hash, previous_hash = EXCLUDED.previous_hash, diff = EXCLUDED.diff`,
    [tracking.crawlId, ...columns(rows, ['url', 'status', 'previousCrawlId', 'previousScrapedAt', 'hash', 'previousHash', 'diff'])],
  );
  const kept = (content: string) => (content.length <= CHANGE_TRACKING_LIMITS.maxStoredContentChars ? content : null);
  const next = pages.map((p) => ({ url: p.url, contentHash: p.m.contentHash, fieldsHash: p.m.fieldsHash, content: kept(p.m.content), fields: JSON.stringify(p.m.fields) }));
  await db.query(
    `INSERT INTO change_baselines (account_id, tracking_id, url, crawl_id, crawl_created_at, scraped_at, content_hash, fields_hash, content, fields)
     SELECT t.account_id, t.tracking_id, p.url, t.crawl_id, t.crawl_created_at, now(), p.content_hash, p.fields_hash, p.content, p.fields
     FROM crawl_change_tracking t, unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[]) AS p(url, content_hash, fields_hash, content, fields)
     WHERE t.crawl_id = $1
     ON CONFLICT (account_id, tracking_id, url) DO UPDATE SET crawl_id = EXCLUDED.crawl_id, crawl_created_at = EXCLUDED.crawl_created_at,
       scraped_at = EXCLUDED.scraped_at, content_hash = EXCLUDED.content_hash, fields_hash = EXCLUDED.fields_hash, content = EXCLUDED.content, fields = EXCLUDED.fields
     WHERE change_baselines.crawl_created_at <= EXCLUDED.crawl_created_at`,
    [tracking.crawlId, ...columns(next, ['url', 'contentHash', 'fieldsHash', 'content', 'fields'])],
  );
  return changes;
}

/**
 * When a tracked crawl ends completed or partial, the pages of its tracking
 * id's baselines it did not find (not in its frontier at all, or answered
 * 404 or 410) are recorded as removed and their baselines dropped, so a
 * later crawl that finds one again reports it new. A failed or cancelled
 * crawl removes nothing: it did not look everywhere.
 */
export async function recordRemovedPages(db: Db, crawlId: string, status: string): Promise<void> {
  if (status !== 'completed' && status !== 'partial') return;
  await db.query(
    `WITH t AS (SELECT * FROM crawl_change_tracking WHERE crawl_id = $1),
     gone AS (
       DELETE FROM change_baselines b USING t
       WHERE b.account_id = t.account_id AND b.tracking_id = t.tracking_id AND b.crawl_created_at < t.crawl_created_at
         AND NOT EXISTS (SELECT 1 FROM crawl_pages p WHERE p.crawl_id = $1 AND p.url = b.url
                         AND NOT (p.status = 'failed' AND p.error_code = 'TARGET_NOT_FOUND'))
       RETURNING b.url, b.crawl_id, b.scraped_at, CASE WHEN t.mode = 'content' THEN b.content_hash ELSE b.fields_hash END AS hash
     )
     INSERT INTO crawl_page_changes (crawl_id, url, status, previous_crawl_id, previous_scraped_at, previous_hash)
     SELECT $1, url, 'removed', crawl_id, scraped_at, hash FROM gone ORDER BY url
     ON CONFLICT (crawl_id, url) DO NOTHING`,
    [crawlId],
  );
}

/**
 * A crawl's change tracking summary for its status: counts by change, and
 * the removed URLs (known once the crawl ends completed or partial; null
 * before, and for a failed or cancelled crawl). Undefined without tracking.
 */
export async function changeSummary(db: Db, crawl: { id: string; status: string }): Promise<JsonObject | undefined> {
  const tracking = await changeTrackingOf(db, crawl.id);
  if (!tracking) return undefined;
  const counts = await db.query<{ status: ChangeStatus; n: number }>('SELECT status, count(*)::int AS n FROM crawl_page_changes WHERE crawl_id = $1 GROUP BY status', [crawl.id]);
  const n = (s: ChangeStatus) => counts.rows.find((r) => r.status === s)?.n ?? 0;
  const removalsKnown = crawl.status === 'completed' || crawl.status === 'partial';
  const removed = removalsKnown
    ? await db.query<{ url: string }>(`SELECT url FROM crawl_page_changes WHERE crawl_id = $1 AND status = 'removed' ORDER BY seq LIMIT $2`, [
        crawl.id,
        CHANGE_TRACKING_LIMITS.removedUrlsShown,
      ])
    : null;
  return {
    tracking_id: tracking.trackingId,
    mode: tracking.mode,
    include_diff: tracking.includeDiff,
    previous_crawl_id: tracking.previousCrawlId,
    new: n('new'),
    changed: n('changed'),
    unchanged: n('unchanged'),
    removed: removalsKnown ? n('removed') : null,
    removed_urls: removed ? removed.rows.map((r) => r.url) : null,
    removed_urls_truncated: removalsKnown && n('removed') > CHANGE_TRACKING_LIMITS.removedUrlsShown,
  };
}

interface PageChangeRow {
  url: string;
  status: ChangeStatus;
  previous_crawl_id: string | null;
  previous_scraped_at: Date | null;
  content_hash: string | null;
  previous_hash: string | null;
  diff: JsonValue | null;
  include_diff: boolean;
}

/** The change of each of a crawl's pages that has one, as its result shows it (`diff` only with include_diff). */
export async function pageChanges(db: Db, crawlId: string, urls: readonly string[]): Promise<Map<string, JsonObject>> {
  if (urls.length === 0) return new Map();
  const res = await db.query<PageChangeRow>(
    `SELECT c.url, c.status, c.previous_crawl_id, c.previous_scraped_at, c.content_hash, c.previous_hash, c.diff, t.include_diff
     FROM crawl_page_changes c JOIN crawl_change_tracking t ON t.crawl_id = c.crawl_id
     WHERE c.crawl_id = $1 AND c.url = ANY($2::text[])`,
    [crawlId, urls],
  );
  return new Map(
    res.rows.map((r) => [
      r.url,
      {
        status: r.status,
        previous_crawl_id: r.previous_crawl_id,
        previous_scraped_at: r.previous_scraped_at?.toISOString() ?? null,
        content_hash: r.content_hash,
        previous_hash: r.previous_hash,
        ...(r.include_diff ? { diff: r.diff } : {}),
      },
    ]),
  );
}
