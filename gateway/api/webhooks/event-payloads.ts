import { z } from 'zod';
import { CRAWL_OUTPUT_EVENT } from '../../../common/event-types.js';
import { STARTED_REPORT_DELAY_MS } from '../../../common/limits.js';
import { CrawlPageResult, PageChangeEvent } from '../crawl/schemas.js';

/**
 * The events a receiver gets (SPEC 6.2, 6.3), for the OpenAPI document's
 * `webhooks` section. Every body is {event, timestamp, data}; job.completed
 * and job.failed follow SPEC 6.3 exactly, the others are this service's
 * design (docs/api.md, Webhooks).
 */
const iso = () => z.string().meta({ description: 'ISO 8601, UTC.' });
const Escalation = z.object({ tier: z.string(), result: z.string(), credits: z.number() });

const JobCompleted = z.object({
  job_id: z.uuid(),
  batch_id: z.string().nullable(),
  url: z.string(),
  status: z.literal('succeeded'),
  result: z.object({
    status_code: z.number().int().nullable(),
    content: z.unknown().meta({ description: 'As in the scrape result: a string for one format, an object keyed by format for several; null with content_omitted when the body would pass 1 MB.' }),
    title: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    content_omitted: z.boolean().optional(),
  }),
  billing: z.object({ total_credits: z.number(), tier_used: z.string().nullable(), escalations: z.array(Escalation) }),
  timing: z.object({ queued_at: iso(), started_at: iso().nullable(), completed_at: iso(), duration_ms: z.number().int() }),
});

const JobFailed = z.object({
  job_id: z.uuid(),
  url: z.string(),
  status: z.literal('failed'),
  error: z.object({ code: z.string(), message: z.string(), details: z.object({ last_tier: z.string().nullable(), attempts: z.number().int() }) }),
  billing: z.object({ total_credits: z.number(), refunded: z.boolean(), reason: z.string() }),
});

const JobStarted = z.object({
  job_id: z.uuid(),
  batch_id: z.string().nullable(),
  url: z.string(),
  status: z.literal('running'),
  tier: z.string(),
  attempt: z.number().int(),
  started_at: iso(),
});

const Credits = z.object({
  account_id: z.uuid(),
  balance_microcents: z.number().int(),
  balance_credits: z.number(),
  threshold_credits: z.number(),
  reference: z.string().meta({ description: 'The ledger entry that crossed the threshold.' }),
});

const BatchCompleted = z.object({
  batch_id: z.string(),
  status: z.enum(['completed', 'partial', 'failed']),
  total: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  completed_at: iso(),
});

const SearchBatchCompleted = z.object({
  batch_id: z.string(),
  status: z.enum(['completed', 'partial', 'failed']),
  total_queries: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  total_cost_microcents: z.number().int(),
  completed_at: iso(),
});

const Metadata = z.record(z.string(), z.unknown()).optional().meta({ description: "The crawl webhook object's metadata, echoed." });

const CrawlEnded = z.object({
  crawl_id: z.string(),
  status: z.enum(['completed', 'partial', 'failed', 'cancelled']),
  total: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  credits_used: z.number(),
  completed_at: iso(),
  metadata: Metadata,
});

const CrawlStarted = z.object({ crawl_id: z.string(), url: z.string(), max_pages: z.number().int(), max_depth: z.number().int(), started_at: iso(), metadata: Metadata });

const CrawlPageBase = z.object({
  crawl_id: z.string(),
  job_id: z.uuid().meta({ description: 'The page\'s id within the crawl (the same on every crawl of that URL in this crawl).' }),
  url: z.string(),
  depth: z.number().int(),
  metadata: Metadata,
});

const CrawlPageCompleted = CrawlPageBase.extend({
  status: z.literal('completed'),
  tier_used: z.string(),
  cost_microcents: z.number().int().meta({ description: 'What the page cost; 0 when read from the cache.' }),
  status_code: z.number().int().meta({ description: 'The status the target answered.' }),
  change_tracking: PageChangeEvent.optional().meta({ description: 'A crawl with change_tracking: the page\'s change.' }),
});

const CrawlPageFailed = CrawlPageBase.extend({
  status: z.literal('failed'),
  error: z.object({ code: z.string(), message: z.string() }),
});

const MonitorChecked = z.object({
  monitor_id: z.string(),
  url: z.string(),
  changed: z.boolean(),
  checked_at: iso(),
  snapshot_id: z.string(),
  previous_snapshot_id: z.string().nullable(),
});

const MonitorChanged = MonitorChecked.extend({
  changed: z.literal(true),
  diff_summary: z.object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int() }),
});

const CrawlPageResultEvent = z
  .union([
    CrawlPageResult.extend({ crawl_id: z.string() }),
    z.object({ crawl_id: z.string(), job_id: z.string(), url: z.string(), data_omitted: z.literal(true) }).meta({
      description: 'A page whose event would exceed 1 MB: its ids only; read it from the crawl status or its result files.',
    }),
  ])
  .meta({ description: 'The page as the crawl status `results` gives it, with its crawl id.' });

export interface EventDoc {
  type: string;
  summary: string;
  data: z.ZodType;
  /** Only the crawl's own `webhook` target receives it. */
  crawlOnly?: boolean;
}

export const EVENT_DOCS: readonly EventDoc[] = [
  { type: 'job.completed', summary: 'A job succeeded', data: JobCompleted },
  { type: 'job.failed', summary: 'A job failed after all retries (its reservation refunded)', data: JobFailed },
  { type: 'job.started', summary: `A worker picked the job up (sent once its attempt has run for ${STARTED_REPORT_DELAY_MS / 1000} s; a job that ends sooner has it recorded just before its end, dated when it started)`, data: JobStarted },
  { type: 'batch.completed', summary: 'The last job of a batch ended', data: BatchCompleted },
  { type: 'credits.low', summary: 'The balance fell below the low-credits threshold', data: Credits },
  { type: 'credits.exhausted', summary: 'The balance cannot pay for the cheapest request', data: Credits },
  { type: 'crawl.completed', summary: 'Every page of a crawl was processed', data: CrawlEnded },
  { type: 'crawl.failed', summary: 'A crawl ended without processing every page', data: CrawlEnded },
  { type: 'batch.search.completed', summary: 'Every query of a SERP batch resolved', data: SearchBatchCompleted },
  { type: 'monitor.changed', summary: 'A monitor found a difference from its previous snapshot', data: MonitorChanged },
  { type: 'monitor.checked', summary: 'A monitor ran', data: MonitorChecked },
  { type: 'crawl.started', summary: 'A crawl started (crawl webhook object only)', data: CrawlStarted, crawlOnly: true },
  { type: 'crawl.page.completed', summary: 'A page of a crawl was scraped (crawl webhook object only)', data: CrawlPageCompleted, crawlOnly: true },
  { type: 'crawl.page.failed', summary: 'A page of a crawl failed (crawl webhook object only)', data: CrawlPageFailed, crawlOnly: true },
  {
    type: CRAWL_OUTPUT_EVENT,
    summary: 'A finished page of a crawl, sent to its output webhook_stream URL only (signed with X-Webhook-* when output.signing.secret is set)',
    data: CrawlPageResultEvent,
    crawlOnly: true,
  },
];
