import { z } from 'zod';
import { CRAWL_LIMITS, CRAWL_STATUSES } from '../../../common/crawl-config.js';
import { CHANGE_TRACKING_LIMITS, MAX_EXTRACTION_SCHEMA_BYTES } from '../../../common/limits.js';
import { headersBytes, MAX_CUSTOM_HEADERS_BYTES } from '../../../common/request-headers.js';
import { CALLER_TIERS } from '../../../common/tiers.js';
import { ScrapeResult } from '../scrape/schemas.js';
import { CssSelector, ExtractionSchema, HttpsUrl, HttpUrl } from '../shared/fields.js';

const Pattern = z.string().min(1).max(CRAWL_LIMITS.maxPatternChars);
const Patterns = z
  .array(Pattern)
  .max(CRAWL_LIMITS.maxPatterns)
  .nullable()
  .default(null)
  .meta({ description: `Path globs: \`*\` one path segment, \`**\` any number; at most ${CRAWL_LIMITS.maxPatterns}.` });

/** Custom headers: SPEC 8.4 allows 32 KB in all. */
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');
const HeaderValue = z.string().refine((v) => !/[\r\n\0]/.test(v), 'header values must not hold line breaks');

const CRAWL_FORMATS = ['text', 'json', 'json_v2', 'html', 'markdown'] as const;
const PROFILES = ['auto', 'product', 'article', 'job_posting', 'faq', 'recipe', 'event'] as const;
const WEBHOOK_EVENTS = ['crawl.started', 'crawl.page.completed', 'crawl.page.failed', 'crawl.completed', 'crawl.failed'] as const;

const Webhook = z
  .object({
    url: HttpsUrl.meta({ description: 'HTTPS URL receiving the crawl events.' }),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).optional().meta({ description: 'Events to deliver; all five by default.' }),
    secret: z.string().min(16).max(256).optional().meta({ description: 'Signs each delivery (X-Webhook-Signature, X-Webhook-Timestamp).' }),
    headers: z.record(HeaderName, HeaderValue).optional(),
    metadata: z.record(z.string(), z.unknown()).optional().meta({ description: 'Echoed in every delivery.' }),
  })
  .strict()
  .meta({ id: 'CrawlWebhook' });

const OutputPrefix = z
  .string()
  .max(1024)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'prefix must be a relative object name prefix')
  .optional()
  .meta({ description: 'Object names start with it: `<prefix>/<crawl_id>/results-00001.jsonl`.' });
const S3Output = z
  .object({
    type: z.literal('s3'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name'),
    credentials: z
      .object({ access_key_id: z.string().min(1).max(128), secret_access_key: z.string().min(1).max(256) })
      .strict()
      .meta({ description: 'An access key allowed s3:PutObject on the bucket. Kept sealed; never echoed.' }),
    prefix: OutputPrefix,
    region: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be an AWS region name').optional().meta({ description: 'us-east-1 by default.' }),
    format: z.enum(['jsonl', 'json']).optional().meta({ description: '`jsonl` (default): a page per line; `json`: each file one JSON array.' }),
  })
  .strict()
  .meta({ description: 'Writes the results to your S3 bucket as part files while the crawl runs.' });
const GcsOutput = z
  .object({
    type: z.literal('gcs'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/, 'must be a GCS bucket name'),
    credentials: z
      .object({ service_account_json: z.string().min(1).max(16_384).meta({ description: 'The service account key file (JSON) as a string.' }) })
      .strict()
      .meta({ description: 'A service account allowed storage.objects.create on the bucket. Kept sealed; never echoed.' }),
    prefix: OutputPrefix,
  })
  .strict()
  .meta({ description: 'Writes the results to your Cloud Storage bucket as JSONL part files while the crawl runs.' });
const WebhookStreamOutput = z
  .object({
    type: z.literal('webhook_stream'),
    url: HttpsUrl.meta({ description: 'Receives a POST per finished page (event crawl.page.result).' }),
    signing: z
      .object({ secret: z.string().min(16).max(256) })
      .strict()
      .optional()
      .meta({ description: 'Adds X-Webhook-Timestamp and X-Webhook-Signature (HMAC-SHA256 over `timestamp.body`).' }),
  })
  .strict()
  .meta({ description: 'POSTs each page as it finishes, retried by the webhook delivery rules.' });

const Budget = z
  .record(Pattern, z.number().int().min(0).max(CRAWL_LIMITS.maxPagesMax))
  .refine((b) => Object.keys(b).length <= CRAWL_LIMITS.maxBudgetPatterns, `at most ${CRAWL_LIMITS.maxBudgetPatterns} patterns`)
  .refine((b) => Object.keys(b).length > 0, 'budget must name at least one pattern')
  .nullable()
  .default(null)
  .meta({ description: 'Path glob to the most pages crawled under it; `*` is the catch-all; the longest matching pattern governs a URL.' });

export const CrawlRequest = z
  .object({
    url: HttpUrl.meta({ description: 'Start URL; its host is the scope of the crawl.' }),
    max_pages: z.number().int().min(1).max(CRAWL_LIMITS.maxPagesMax).default(CRAWL_LIMITS.maxPagesDefault),
    max_depth: z.number().int().min(0).max(CRAWL_LIMITS.maxDepthMax).default(CRAWL_LIMITS.maxDepthDefault).meta({ description: '0 crawls the start page only.' }),
    include_patterns: Patterns,
    exclude_patterns: Patterns.meta({ description: 'Path globs to leave out; exclude wins over include.' }),
    formats: z
      .array(z.enum(CRAWL_FORMATS))
      .min(1)
      .refine((f) => new Set(f).size === f.length, 'formats must not repeat')
      .nullable()
      .default(null)
      .meta({ description: 'Per page; markdown when null.' }),
    extraction_schema: ExtractionSchema.nullable().default(null).meta({ description: `JSON Schema applied to every page (at most ${MAX_EXTRACTION_SCHEMA_BYTES / 1024} KB).` }),
    extraction_profile: z.enum(PROFILES).nullable().default(null),
    webhook_url: HttpsUrl.nullable().default(null).meta({ description: 'Receives crawl.completed only, unsigned. Not with webhook.' }),
    webhook: Webhook.nullable().default(null),
    respect_robots: z.boolean().default(true),
    include_subdomains: z.boolean().default(false),
    sitemap: z
      .union([z.enum(['include', 'skip', 'only']), z.boolean()])
      .default('include')
      .transform((v) => (v === true ? 'include' : v === false ? 'skip' : v))
      .meta({ description: '`include` (default), `skip`, or `only`: the sitemaps\' URLs exclusively, no link extraction.' }),
    sitemap_path: z.string().max(CRAWL_LIMITS.maxPatternChars).regex(/^\/\S*$/, 'sitemap_path must be a path starting with /').nullable().default(null),
    cache: z.boolean().default(false).meta({ description: 'Keeps each fetched page for cache_ttl; a page read from the cache costs 0 credits.' }),
    cache_ttl: z.number().int().min(CRAWL_LIMITS.cacheTtlMin).max(CRAWL_LIMITS.cacheTtlMax).default(CRAWL_LIMITS.cacheTtlDefault),
    force_refresh: z.boolean().default(false).meta({ description: 'Fetches every page even when the cache holds it.' }),
    headers: z
      .record(HeaderName, HeaderValue)
      .refine((h) => headersBytes(h) <= MAX_CUSTOM_HEADERS_BYTES, `headers are at most ${MAX_CUSTOM_HEADERS_BYTES / 1024} KB in all`)
      .nullable()
      .default(null)
      .meta({ description: 'Sent with every page request; Host, Connection, Content-Length, Transfer-Encoding and Accept-Encoding are the client\'s own.' }),
    storage: z
      .enum(['redis', 's3', 'r2'])
      .default('redis')
      .meta({
        description:
          '`redis`: results inline on the status for 24 hours. `s3`/`r2`: JSONL files in the service\'s bucket, listed with presigned download URLs under the status\'s `storage`, kept 30 days; 400 STORAGE_NOT_CONFIGURED when the server has no such bucket.',
      }),
    advanced: z
      .object({
        render_js: z.boolean().default(false).meta({ description: 'Loads every page in the browser (tier 4, 20 credits a page); needs max_tier 4 when max_tier is set.' }),
        screenshot: z.boolean().default(false).meta({ description: 'A full-page PNG of each page (`screenshot_url`); needs render_js. +1 credit a page.' }),
        use_proxy: z.boolean().default(false).meta({
          description:
            "Fetches every page, at every planned tier, through the operator's premium proxy network, behind the SSRF guard: +1 credit a page on top of its tier. 400 VALIDATION_ERROR when the service has no premium network.",
        }),
        wait_for: CssSelector.nullable().default(null).meta({ description: 'A CSS selector the browser tiers wait for before reading a page.' }),
        timeout: z.number().int().min(1).max(300).default(CRAWL_LIMITS.fetchTimeoutDefaultS),
      })
      .strict()
      .nullable()
      .default(null),
    cost_controls: z
      .object({
        max_credits: z.number().int().positive().optional().meta({ description: 'Caps the pages crawled at what this many credits pay for.' }),
        max_tier: z.enum(CALLER_TIERS).optional().meta({
          description:
            'Above 1, each page escalates as a scrape does, up to this tier: a blocked or challenged page to the next tier, a JavaScript shell to the first browser tier. Without max_tier, force_tier or render_js every page is fetched at tier 1 only.',
        }),
        force_tier: z.enum(CALLER_TIERS).optional().meta({ description: 'Fetches every page at this tier alone.' }),
      })
      .strict()
      .refine((c) => !c.force_tier || !c.max_tier || Number(c.force_tier) <= Number(c.max_tier), { message: 'force_tier cannot exceed max_tier', path: ['force_tier'] })
      .meta({ description: 'The crawl reserves each planned page at the dearest tier it plans with its add-ons, charges each page at the tier that fetched it (plus the add-ons) and refunds the rest when it ends.' })
      .nullable()
      .default(null),
    priority: z
      .object({
        keywords: z.array(z.string().min(1).max(100)).max(CRAWL_LIMITS.maxKeywords).optional(),
        boost_patterns: z.array(Pattern).max(CRAWL_LIMITS.maxPatterns).optional(),
        demote_patterns: z.array(Pattern).max(CRAWL_LIMITS.maxPatterns).optional(),
      })
      .strict()
      .nullable()
      .default(null)
      .meta({ description: 'Scores URLs 0 to 1; the frontier is scraped best first and the lowest are left out at max_pages.' }),
    budget: Budget,
    change_tracking: z
      .object({
        enabled: z.boolean().default(false),
        tracking_id: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .meta({ description: "Pages are compared with the account's previous crawl under this id; the start URL's host (without www.) by default." }),
        mode: z.enum(['content', 'structured']).default('content').meta({ description: '`content`: SHA-256 of the normalised main content; `structured`: the extracted fields, field by field.' }),
        include_diff: z.boolean().default(false).meta({ description: 'Adds each page\'s diff: +1 credit a page in content mode, +2 in structured mode.' }),
      })
      .strict()
      .nullable()
      .default(null)
      .meta({ id: 'CrawlChangeTracking', description: 'Compares each page with the previous crawl of the same tracking_id (see docs/api.md, change tracking).' }),
    output: z
      .discriminatedUnion('type', [S3Output, GcsOutput, WebhookStreamOutput])
      .nullable()
      .default(null)
      .meta({ description: 'Also sends each page, as it finishes, to your bucket or URL; how that goes is the status\'s `output_status`. A failing output never fails or re-charges the crawl.' }),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.webhook_url && r.webhook) ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'webhook_url and webhook cannot be sent together' });
    if (r.advanced?.screenshot && !r.advanced.render_js) ctx.addIssue({ code: 'custom', path: ['advanced', 'screenshot'], message: 'screenshot requires render_js: true' });
  })
  .meta({ id: 'CrawlRequest' });

export const CrawlStarted = z
  .object({
    crawl_id: z.uuid(),
    status: z.enum(CRAWL_STATUSES),
    estimated_pages: z.number().int().meta({ description: 'Pages the crawl may scrape: max_pages, less when budget or max_credits cap it. Under max_credits, the pages it covers at the dearest planned tier; pages that cost less leave room for more as the crawl goes, up to max_pages.' }),
    total_enqueued: z.number().int(),
    estimated_credits: z.number().meta({ description: 'Credits reserved now: estimated_pages at the dearest planned tier; the unused part is refunded when the crawl ends.' }),
    message: z.string(),
  })
  .meta({ id: 'CrawlStarted' });

const CrawlBillingDoc = z
  .object({
    credits_debited: z.number().meta({ description: 'Reserved from the balance (at the start and at each resume).' }),
    credits_used: z.number().meta({ description: 'Charged for pages scraped.' }),
    credits_refunded: z.number(),
    estimated_cost_usd: z.number(),
    actual_cost_usd: z.number(),
    is_byop: z.boolean(),
    tier_breakdown: z.record(z.string(), z.number().int()).meta({ description: 'Completed pages per tier that fetched them; `cache` for pages read from the cache.' }),
  })
  .meta({ id: 'CrawlBilling' });

const BudgetStatusDoc = z
  .object({
    budget: z.record(z.string(), z.number().int()),
    counts: z.record(z.string(), z.number().int()).meta({ description: 'Pages taken per pattern.' }),
    exhausted: z.array(z.string()),
  })
  .meta({ id: 'CrawlBudgetStatus' });

const CHANGE_STATUSES = ['new', 'changed', 'unchanged', 'removed'] as const;

/** A page's change as crawl.page.completed and the stream's page.completed carry it. */
export const PageChangeEvent = z
  .object({
    status: z.enum(CHANGE_STATUSES),
    content_hash: z.string().nullable().meta({ description: 'SHA-256 (hex) of what the mode compares: the normalised content, or the canonical JSON of the fields.' }),
    previous_hash: z.string().nullable(),
  })
  .meta({ id: 'CrawlPageChangeEvent' });

const FieldChange = z
  .object({
    field: z.string().meta({ description: 'Dotted path into nested objects; arrays are compared whole.' }),
    old: z.unknown().meta({ description: 'Any JSON value; null for an added field.' }),
    new: z.unknown().meta({ description: 'Any JSON value; null for a removed field.' }),
    change: z.enum(['added', 'removed', 'modified']),
  })
  .meta({ id: 'CrawlFieldChange' });

const PageChange = PageChangeEvent.extend({
  previous_crawl_id: z.string().nullable().meta({ description: 'The crawl that last saw the page (null for a new page).' }),
  previous_scraped_at: z.string().nullable(),
  diff: z
    .union([z.string(), z.array(FieldChange)])
    .nullable()
    .optional()
    .meta({
      description:
        'Only with include_diff. Content mode: a unified diff of the normalised content (empty when unchanged); structured mode: the field changes. ' +
        'Null for a new page and when the previous content was too large to keep.',
    }),
}).meta({ id: 'CrawlPageChange' });

const ChangeSummary = z
  .object({
    tracking_id: z.string(),
    mode: z.enum(['content', 'structured']),
    include_diff: z.boolean(),
    previous_crawl_id: z.string().nullable().meta({ description: 'The latest earlier crawl of the account with this tracking_id.' }),
    new: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    removed: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Pages of the previous crawls not found by this one (or answered 404/410); known when the crawl ends completed or partial, null before and for a failed or cancelled crawl.' }),
    removed_urls: z.array(z.string()).nullable().meta({ description: `The first ${CHANGE_TRACKING_LIMITS.removedUrlsShown} removed URLs.` }),
    removed_urls_truncated: z.boolean(),
  })
  .meta({ id: 'CrawlChangeSummary' });

export const CrawlPageResult = z
  .object({
    job_id: z.string().meta({ description: 'The page\'s id in events and results.' }),
    url: z.string(),
    depth: z.number().int(),
    status: z.enum(['completed', 'failed']),
    status_code: z.number().int().nullable(),
    tier_used: z.string().nullable(),
    credits_used: z.number(),
    cached: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    result: ScrapeResult.omit({ version: true, billing: true, job_id: true })
      .nullable()
      .meta({ description: 'The page as a scrape answers it; null for a failed page or a result past its 24-hour retention.' }),
    completed_at: z.string(),
    change_tracking: PageChange.nullable().meta({ description: 'With change_tracking: how the page compares with the previous crawl; null otherwise.' }),
  })
  .meta({ id: 'CrawlPageResult' });

const StorageFileDoc = z
  .object({
    part: z.number().int(),
    url: z.string().nullable().meta({ description: 'Presigned GET URL, signed at each status read; null once the file\'s retention has ended.' }),
    url_expires_at: z.string().nullable().meta({ description: 'At most 7 days ahead, never past expires_at.' }),
    pages: z.number().int(),
    bytes: z.number().int(),
    written_at: z.string(),
    expires_at: z.string().nullable().meta({ description: 'When the file is deleted: 30 days after it was written.' }),
  })
  .meta({ id: 'CrawlStorageFile' });

const StorageStatusDoc = z
  .object({
    type: z.enum(['redis', 's3', 'r2']),
    format: z.literal('jsonl').optional(),
    pages_stored: z.number().int().optional().meta({ description: 'Page results written to files.' }),
    pages_pending: z.number().int().optional().meta({ description: 'Finished pages not yet in a file (written within seconds; a failing write is retried).' }),
    files: z.array(StorageFileDoc).optional().meta({ description: 'The result files in order; each line is a page as `results` gives it.' }),
    last_error: z.string().nullable().optional().meta({ description: 'Why the last write failed, while a file is still waiting to be written.' }),
  })
  .meta({ id: 'CrawlStorage', description: 'Where the results are: `redis` (inline with include_results), or s3/r2 files (only the type for redis).' });

const OutputStatusDoc = z
  .object({
    type: z.enum(['s3', 'gcs', 'webhook_stream']),
    destination: z.string().meta({ description: 's3://bucket/prefix, gs://bucket/prefix or the webhook_stream URL.' }),
    format: z.enum(['jsonl', 'json']).optional(),
    pages_delivered: z.number().int(),
    pages_pending: z.number().int().meta({ description: 'Not yet delivered, including those waiting for a retry.' }),
    pages_failed: z.number().int().meta({ description: 'Given up after the retries (3 attempts); the crawl and its charges are unaffected.' }),
    files_written: z.number().int().optional(),
    last_error: z.string().nullable(),
  })
  .meta({ id: 'CrawlOutputStatus' });

export const CrawlStatusBody = z
  .object({
    crawl_id: z.string(),
    url: z.string(),
    status: z.enum(CRAWL_STATUSES),
    total: z.number().int().meta({ description: 'Pages done, in progress and still to do within the allowance.' }),
    completed: z.number().int(),
    failed: z.number().int(),
    in_progress: z.number().int(),
    cancelled: z.number().int(),
    credits_debited: z.number(),
    current_depth: z.number().int(),
    max_depth: z.number().int(),
    max_pages: z.number().int(),
    total_discovered: z.number().int().meta({ description: 'Distinct URLs found in the crawl\'s scope.' }),
    billing: CrawlBillingDoc,
    budget_status: BudgetStatusDoc,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    config: z.record(z.string(), z.unknown()).meta({ description: 'The request as run, defaults applied.' }),
    change_tracking: ChangeSummary.nullable().meta({ description: 'With change_tracking: pages by change since the previous crawl; null otherwise.' }),
    storage: StorageStatusDoc,
    output_status: OutputStatusDoc.optional().meta({ description: 'Present when the crawl has an `output`.' }),
    results: z
      .array(CrawlPageResult)
      .optional()
      .meta({ description: 'With include_results=true: finished pages in discovery order, paged by results_limit and results_offset; empty with storage s3/r2 (see results_location).' }),
    results_total: z.number().int().optional().meta({ description: 'Finished pages (inline), or pages written to the storage files.' }),
    results_location: z.enum(['inline', 'storage']).optional().meta({ description: 'With include_results=true: `storage` when the results are the files listed under `storage` rather than `results`.' }),
  })
  .meta({ id: 'CrawlStatus' });

export const CrawlIdParam = z.object({ crawl_id: z.string().min(1).max(100) });

const boolQuery = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1');

export const CrawlStatusQuery = z
  .object({
    include_results: boolQuery,
    results_limit: z.coerce.number().int().min(1).max(CRAWL_LIMITS.resultsLimitMax).default(CRAWL_LIMITS.resultsLimitDefault),
    results_offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  })
  .strict();

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD').refine((d) => !Number.isNaN(Date.parse(d)), 'must be a real date');

export const CrawlListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(CRAWL_LIMITS.listLimitMax).default(CRAWL_LIMITS.listLimitDefault),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
    status: z.enum(CRAWL_STATUSES).optional(),
    domain: z.string().min(1).max(253).optional().meta({ description: 'Case-insensitive substring of the crawl\'s domain.' }),
    date_from: Day.optional(),
    date_to: Day.optional(),
    sort: z.enum(['created_at', 'status']).default('created_at'),
    order: z.enum(['asc', 'desc']).default('desc'),
  })
  .strict();

export const CrawlListItem = z
  .object({
    crawl_id: z.string(),
    url: z.string(),
    status: z.enum(CRAWL_STATUSES),
    total_pages: z.number().int(),
    completed_pages: z.number().int(),
    failed_pages: z.number().int(),
    credits_debited: z.number(),
    credits_used: z.number(),
    credits_refunded: z.number(),
    max_depth: z.number().int(),
    max_pages: z.number().int(),
    tier_breakdown: z.record(z.string(), z.number().int()),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    duration_seconds: z.number().nullable(),
  })
  .meta({ id: 'CrawlListItem' });

export const CrawlList = z
  .object({ crawls: z.array(CrawlListItem), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'CrawlList' });

export const CrawlCancelled = z
  .object({
    crawl_id: z.string(),
    status: z.literal('cancelled'),
    cancelled_jobs: z.number().int().meta({ description: 'Pages that were queued or in progress, now cancelled.' }),
    credits_refunded: z.number(),
    credits_used: z.number(),
    message: z.string(),
  })
  .meta({ id: 'CrawlCancelled' });

export const CrawlResumeRequest = z
  .object({
    urls: z
      .array(HttpUrl)
      .max(CRAWL_LIMITS.maxResumeUrls)
      .default([])
      .meta({ description: 'More start URLs within the crawl\'s site, crawled at depth 0.' }),
  })
  .strict()
  .meta({ id: 'CrawlResumeRequest' });

export const CrawlResumed = z
  .object({
    crawl_id: z.string(),
    status: z.literal('scraping'),
    requeued: z.number().int().meta({ description: 'Failed and cancelled pages queued again.' }),
    added_urls: z.number().int(),
    credits_debited: z.number().meta({ description: 'Reserved for the work still to do; completed pages are never charged again.' }),
    message: z.string(),
  })
  .meta({ id: 'CrawlResumed' });

/** The `data` of each stream event (SPEC 6.5), by event name. */
export const CrawlStreamEvents = z
  .object({
    'page.completed': z.object({
      crawl_id: z.string(),
      job_id: z.string(),
      url: z.string(),
      status: z.literal('completed'),
      cost_microcents: z.number().int(),
      tier_used: z.string(),
      status_code: z.number().int(),
      change_tracking: PageChangeEvent.optional().meta({ description: 'With change_tracking.' }),
    }),
    'page.failed': z.object({ crawl_id: z.string(), job_id: z.string(), url: z.string(), status: z.literal('failed'), error: z.object({ code: z.string(), message: z.string() }) }),
    'crawl.progress': z.object({
      crawl_id: z.string(),
      completed: z.number().int(),
      failed: z.number().int(),
      total: z.number().int(),
      credits_used: z.number(),
      current_depth: z.number().int(),
    }),
    'crawl.completed': z.object({
      crawl_id: z.string(),
      status: z.enum(['completed', 'partial', 'failed', 'cancelled']),
      total: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
      credits_used: z.number(),
      credits_refunded: z.number(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
    heartbeat: z.object({ timestamp: z.string() }),
    timeout: z.object({ message: z.string(), last_event_id: z.number().int() }),
  })
  .meta({
    id: 'CrawlStreamEvents',
    description:
      'The stream is text/event-stream; each event has `event:` (one of these names), `data:` (this JSON) and, for stored events, an increasing integer `id:`. heartbeat and timeout carry no id.',
  });
