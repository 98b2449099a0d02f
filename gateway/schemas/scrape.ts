import { z } from 'zod';
import { validateExtractionSchema } from '../../common/extraction-schema.js';
import { TrawlError } from '../../common/errors.js';
import { Billing } from './common.js';

export const FORMATS = ['text', 'json', 'json_v2', 'html', 'markdown', 'rag'] as const;
export const TIER_VALUES = ['1', '2', '3', '3.5', '4'] as const;
export const MAX_URL_LENGTH = 8_192;
export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCRAPE_PROMPT_CHARS = 4_000;
export const MAX_BODY_BYTES = 1024 * 1024;

export const HttpUrl = z
  .string()
  .max(MAX_URL_LENGTH, `URLs are at most ${MAX_URL_LENGTH} characters`)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

const HttpsUrl = HttpUrl.refine((value) => value.startsWith('https://'), 'must be an https URL');

export const ExtractionSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    // The same check the workers apply, run here so a bad schema is refused before anything is queued or charged.
    try {
      validateExtractionSchema(value);
    } catch (err) {
      if (!(err instanceof TrawlError)) throw err;
      const field = typeof err.details?.['field'] === 'string' ? err.details['field'] : 'extraction_schema';
      ctx.addIssue({ code: 'custom', message: err.message, path: field.split('.').slice(1) });
    }
  })
  .meta({ description: `A JSON Schema (an object with properties), at most ${MAX_SCHEMA_BYTES / 1024} KB; the response then carries filtered_content.` });

/** A prompt with something in it besides whitespace. */
export const promptText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim() !== '', 'must not be blank');

export const RagOptions = z
  .object({
    chunk_size: z.number().int().min(32).max(8_192).optional().meta({ description: 'Tokens per chunk (cl100k). Default 512.' }),
    overlap: z.number().int().min(0).max(4_096).optional().meta({ description: 'Tokens repeated between chunks. Default 64.' }),
  })
  .strict()
  .refine((r) => r.overlap === undefined || r.overlap < (r.chunk_size ?? 512), { message: 'overlap must be smaller than chunk_size', path: ['overlap'] })
  .meta({ id: 'RagOptions' });

export const Advanced = z
  .object({
    render_js: z.union([z.boolean(), z.literal('auto')]).optional(),
    screenshot: z.boolean().optional(),
    generate_pdf: z.boolean().optional(),
    ocr: z.boolean().optional(),
    use_proxy: z.boolean().optional(),
    markdown: z.boolean().optional(),
    wait_condition: z.enum(['domcontentloaded', 'networkidle', 'load']).optional(),
    remove_cookie_banners: z.boolean().optional(),
    use_own_proxy: z.string().optional().meta({ description: 'Proxy URL, e.g. http://user:pass@host:port.' }),
    scroll_to_load: z.boolean().optional(),
    session_id: z.uuid().optional(),
    cookies: z.record(z.string(), z.string()).optional(),
    only_main_content: z.boolean().optional().meta({ description: 'false converts the whole page instead of its main content. Default true.' }),
  })
  .strict()
  .superRefine((a, ctx) => {
    for (const field of ['screenshot', 'generate_pdf', 'scroll_to_load'] as const) {
      if (a[field] === true && a.render_js !== true) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} requires render_js: true` });
      }
    }
    if (a.session_id !== undefined && a.cookies !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cookies'],
        message: 'session_id and cookies cannot be sent together',
        params: { code: 'SESSION_COOKIES_CONFLICT' },
      });
    }
  });

export const CostControls = z
  .object({
    max_credits: z.number().positive().optional().meta({ description: 'Maximum credits for the request (also called max_cost).' }),
    max_cost: z.number().positive().optional().meta({ description: 'Alias of max_credits.' }),
    force_tier: z.enum(TIER_VALUES).optional(),
    max_tier: z.enum(TIER_VALUES).optional(),
    prefer_cost: z.boolean().optional(),
    prefer_speed: z.boolean().optional(),
    fail_fast: z.boolean().optional(),
  })
  .strict();

export const ScrapeRequest = z
  .object({
    url: HttpUrl.meta({ description: 'The page to scrape.' }),
    mode: z.enum(['auto', 'html', 'js', 'pdf', 'ocr']).default('auto'),
    sync: z.boolean().default(true),
    sync_policy: z.enum(['auto', 'wait_until_deadline']).default('auto'),
    formats: z
      .array(z.enum(FORMATS))
      .min(1)
      .refine((f) => new Set(f).size === f.length, 'formats must not repeat')
      .default(['markdown', 'json']),
    advanced: Advanced.optional(),
    cost_controls: CostControls.optional(),
    force_refresh: z.boolean().default(false),
    include_raw_html: z.boolean().default(false),
    timeout: z.number().int().min(1).max(300).default(90).meta({ description: 'Seconds.' }),
    extraction_schema: ExtractionSchema.optional(),
    extraction_profile: z.enum(['product', 'article', 'job_posting']).optional(),
    extraction_prompt: promptText(MAX_SCRAPE_PROMPT_CHARS).optional(),
    wait_for: z.string().min(1).max(1_000).optional(),
    wait_until: z.enum(['load', 'domcontentloaded', 'networkidle']).optional(),
    enable_scroll: z.boolean().optional(),
    cache: z.boolean().default(false),
    cache_ttl: z.number().int().min(1).max(30 * 24 * 3600).optional(),
    webhook_url: HttpsUrl.optional(),
    location: z
      .object({
        country: z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code'),
        city: z.string().min(1).max(100).optional(),
      })
      .strict()
      .optional(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).default('GET'),
    body: z
      .string()
      .refine((b) => Buffer.byteLength(b, 'utf8') <= MAX_BODY_BYTES, 'body is at most 1 MB')
      .optional(),
    content_type: z.enum(['application/json', 'application/x-www-form-urlencoded', 'text/plain']).optional(),
    rag_options: RagOptions.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.sync_policy === 'wait_until_deadline' && !r.sync) {
      ctx.addIssue({ code: 'custom', path: ['sync_policy'], message: 'wait_until_deadline requires sync: true' });
    }
    if (r.body !== undefined && (r.method === 'GET' || r.method === 'HEAD')) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: `a body is not allowed with method ${r.method}` });
    }
    if (r.method === 'POST' && r.body === undefined && r.content_type === undefined) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'POST needs a body or an explicit content_type' });
    }
    const cc = r.cost_controls;
    if (cc?.max_credits !== undefined && cc.max_cost !== undefined && cc.max_credits !== cc.max_cost) {
      ctx.addIssue({ code: 'custom', path: ['cost_controls', 'max_cost'], message: 'max_cost and max_credits differ; send one' });
    }
  })
  .meta({ id: 'ScrapeRequest' });

export type ScrapeRequestInput = z.output<typeof ScrapeRequest>;

export const ScrapeResult = z
  .object({
    url: z.string(),
    status_code: z.number().int(),
    content: z.union([z.string(), z.record(z.string(), z.unknown())]).meta({
      description: 'A string when exactly one text format (markdown, text or html) was asked for; otherwise an object keyed by format.',
    }),
    title: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    headers: z.record(z.string(), z.string()),
    cached: z.boolean(),
    response_time_ms: z.number().int(),
    size_bytes: z.number().int(),
    screenshot_url: z.string().nullable(),
    pdf_url: z.string().nullable(),
    billing: Billing,
    filtered_content: z.record(z.string(), z.unknown()).optional(),
    extraction_method: z.string(),
    model_used: z.string().nullable().optional(),
    raw_html: z.string().optional(),
    final_url: z.string(),
    job_id: z.string(),
    version: z.literal('v1'),
  })
  .meta({ id: 'ScrapeResult' });

export const ScrapeAccepted = z
  .object({
    job_id: z.uuid(),
    poll_url: z.string().meta({ description: 'Always /api/v1/jobs/{job_id}.' }),
    status: z.enum(['pending', 'running']),
    message: z.string(),
    version: z.literal('v1'),
  })
  .meta({ id: 'ScrapeAccepted' });

export const EstimateResult = z
  .object({
    url: z.string(),
    mode: z.string(),
    estimated_credits: z.number().meta({ description: 'The price of the first planned tier: what a scrape that succeeds at once costs.' }),
    max_possible_credits: z.number().meta({ description: 'The price of the most expensive planned tier: what is reserved.' }),
    estimated_tier: z.string(),
    tier_plan: z.array(z.string()).meta({ description: 'The tiers the scrape would try, in order.' }),
    runnable: z.boolean().meta({ description: 'False when a planned tier has no worker pool on this deployment (the scrape would answer 503).' }),
    available_tiers: z.array(z.string()),
    version: z.literal('v1'),
  })
  .meta({ id: 'ScrapeEstimate' });

// The unified fetch sends its own browser-like headers and always follows redirects (each hop checked by the
// SSRF guard); the old routes' knobs for these are refused rather than silently ignored.
const noCustomHeaders = z
  .record(z.string(), z.string())
  .refine((h) => Object.keys(h).length === 0, 'custom request headers are not supported; use POST /api/v1/scrape')
  .optional();
const alwaysFollowRedirects = z
  .boolean()
  .refine((v) => v, 'redirects are always followed; use POST /api/v1/scrape')
  .default(true);

const legacyCommon = {
  url: HttpUrl,
  timeout: z.number().int().min(1).max(300).default(90),
  force_refresh: z.boolean().default(false),
};

/** The deprecated per-mode routes (SPEC 4.1, 9.6); each maps onto one unified scrape. */
export const LegacyJsRequest = z
  .object({
    ...legacyCommon,
    method: z.literal('GET').default('GET'),
    headers: noCustomHeaders,
    follow_redirects: alwaysFollowRedirects,
    wait_for: z.string().max(1_000).optional(),
    screenshot: z.boolean().default(false),
    wait_until: z.enum(['load', 'domcontentloaded', 'networkidle']).default('networkidle'),
    include_raw_html: z.boolean().default(false),
  })
  .strict()
  .meta({ id: 'LegacyJsRequest' });

export const LegacyLightRequest = z
  .object({
    ...legacyCommon,
    method: z.literal('GET').default('GET'),
    headers: noCustomHeaders,
    follow_redirects: alwaysFollowRedirects,
    include_raw_html: z.boolean().default(false),
  })
  .strict()
  .meta({ id: 'LegacyLightRequest' });

export const LegacyOcrRequest = z
  .object({ url: HttpUrl, language: z.string().min(2).max(32).default('eng'), force_refresh: z.boolean().default(false) })
  .strict()
  .meta({ id: 'LegacyOcrRequest' });

export const LegacyPdfRequest = z
  .object({ url: HttpUrl, format: z.enum(['markdown', 'text', 'html']).default('markdown'), force_refresh: z.boolean().default(false) })
  .strict()
  .meta({ id: 'LegacyPdfRequest' });
