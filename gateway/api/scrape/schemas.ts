import { z } from 'zod';
import {
  CACHE_TTL_DEFAULT_S,
  CACHE_TTL_MAX_S,
  CACHE_TTL_MIN_S,
  DEFAULT_FETCH_TIMEOUT_S,
  MAX_SCRAPE_PROMPT_CHARS,
  MAX_TARGET_REQUEST_BODY_BYTES,
  sizeLabel,
  WAIT_FOR_DEFAULT_MS,
  WAIT_FOR_MAX_MS,
} from '../../../common/limits.js';
import { COUNTRY_PROFILES } from '../../../common/locations.js';
import { parseProxyUrl } from '../../../common/proxy-url.js';
import { CALLER_TIERS } from '../../../common/tiers.js';
import { Billing } from '../shared/billing.js';
import { ErrorEnvelope } from '../../http/error-envelope.js';
import { CookieMap, CssSelector, ExtractionSchema, formatList, HttpsUrl, HttpUrl, promptText, RagOptions, RequestHeaders } from '../shared/fields.js';

/** Seconds a fetch may take. */
export const FetchTimeout = z.number().int().min(1).max(300).default(DEFAULT_FETCH_TIMEOUT_S);

/** Tesseract language codes (three letters, an optional script or variant), joined by +. */
export const OCR_LANGUAGES = /^[a-z]{3}(_[a-z]{2,8})?(\+[a-z]{3}(_[a-z]{2,8})?){0,4}$/;

export const OCR_LANGUAGES_MESSAGE = 'Tesseract language codes joined by +, such as eng or eng+deu';

export const Advanced = z
  .object({
    render_js: z.union([z.boolean(), z.literal('auto')]).optional().meta({
      description:
        'true: render on the browser tier (4) at once. "auto" or omitted: start on plain HTTP and move to the browser when the page is ' +
        'a JavaScript-only shell. false: never move to the browser for a shell.',
    }),
    screenshot: z.boolean().optional(),
    generate_pdf: z.boolean().optional(),
    ocr: z.boolean().optional().meta({ description: 'Reads an image response with OCR (as mode ocr does); +5 credits.' }),
    ocr_language: z
      .string()
      .regex(OCR_LANGUAGES, OCR_LANGUAGES_MESSAGE)
      .optional()
      .meta({ description: 'Languages OCR reads, as Tesseract codes joined by + (default eng). Used with mode ocr or advanced.ocr.' }),
    use_proxy: z.boolean().optional().meta({
      description:
        "Every connection leaves through the service's premium proxy network (of location.country when set); +1 credit. 400 when the service has none configured.",
    }),
    markdown: z.boolean().optional().meta({
      description: 'true adds markdown to formats; false takes it out (400 when nothing else is asked for). Free either way.',
    }),
    wait_condition: z.enum(['domcontentloaded', 'networkidle', 'load']).optional(),
    remove_cookie_banners: z.boolean().optional().meta({
      description:
        "Consent banners are removed before the page is read: in the browser, the consent platforms' elements and boxes that look like banners; " +
        'over HTTP, the platforms\' elements of a whole page (only_main_content false; the main content never holds one). Default true.',
    }),
    use_own_proxy: z.boolean().optional().meta({ description: 'Every connection leaves through your proxy, proxy_url; +4 credits ($0.0008).' }),
    proxy_url: z
      .string()
      .max(2_000)
      .superRefine((text, ctx) => {
        const parsed = parseProxyUrl(text);
        if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `proxy_url ${parsed}` });
      })
      .optional()
      .meta({
        description:
          'With use_own_proxy: your proxy, http://user:pass@host:port, https://… (TLS to the proxy) or socks5://user:pass@host:port. ' +
          'Its address must be a public internet address (URL_NOT_ALLOWED otherwise). Never stored with the job nor shown back.',
      }),
    scroll_to_load: z.boolean().optional(),
    session_id: z.uuid().optional(),
    cookies: CookieMap.optional().meta({ description: "Cookies sent to the target's origin by every tier (the browser sets them before it loads); not with session_id." }),
    only_main_content: z.boolean().optional().meta({ description: 'false converts the whole page instead of its main content. Default true.' }),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.use_own_proxy === true && a.proxy_url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['proxy_url'], message: 'use_own_proxy needs proxy_url' });
    }
    if (a.proxy_url !== undefined && a.use_own_proxy !== true) {
      ctx.addIssue({ code: 'custom', path: ['proxy_url'], message: 'proxy_url is used only with use_own_proxy: true' });
    }
    if (a.use_own_proxy === true && a.use_proxy === true) {
      ctx.addIssue({ code: 'custom', path: ['use_own_proxy'], message: 'use_proxy and use_own_proxy cannot be sent together' });
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
    force_tier: z.enum(CALLER_TIERS).optional(),
    max_tier: z.enum(CALLER_TIERS).optional(),
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
    formats: formatList(['markdown', 'json']),
    advanced: Advanced.optional(),
    cost_controls: CostControls.optional(),
    force_refresh: z.boolean().default(false),
    include_raw_html: z.boolean().default(false),
    timeout: FetchTimeout.meta({ description: 'Seconds.' }),
    extraction_schema: ExtractionSchema.optional(),
    extraction_profile: z.enum(['product', 'article', 'job_posting']).optional(),
    extraction_prompt: promptText(MAX_SCRAPE_PROMPT_CHARS).optional(),
    wait_for: CssSelector.min(1).optional().meta({
      description:
        'Browser tier: a CSS selector waited for (wait_for_timeout, 30 s by default, never past timeout) before the page is read; TIMEOUT when it never appears. ' +
        'Sends the request to the browser as render_js true does.',
    }),
    wait_for_timeout: z
      .number()
      .int()
      .min(1)
      .max(WAIT_FOR_MAX_MS / 1000)
      .optional()
      .meta({ description: `Seconds the browser waits for wait_for before answering TIMEOUT: ${WAIT_FOR_DEFAULT_MS / 1000} by default, at most ${WAIT_FOR_MAX_MS / 1000}, never past timeout. Only with wait_for.` }),
    wait_until: z.enum(['load', 'domcontentloaded', 'networkidle']).optional().meta({ description: 'Browser tier: the load event navigation waits for. Default load.' }),
    enable_scroll: z.boolean().optional().meta({
      description:
        'Browser tier: true scrolls until the page stops growing (infinite scroll) and sends the request to the browser as render_js true does; ' +
        'false never scrolls; omitted scrolls a page taller than the window while it grows.',
    }),
    cache: z.boolean().default(false).meta({ description: 'Reuse a result of the same request (free, cached: true) and keep this one for others; only GET and HEAD requests.' }),
    cache_ttl: z
      .number()
      .int()
      .min(CACHE_TTL_MIN_S)
      .max(CACHE_TTL_MAX_S)
      .optional()
      .meta({ description: `Seconds a cached result is reused (with cache: true); ${CACHE_TTL_DEFAULT_S} by default.` }),
    webhook_url: HttpsUrl.optional(),
    location: z
      .object({
        country: z
          .string()
          .regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code')
          .refine((c) => COUNTRY_PROFILES[c.toUpperCase()] !== undefined, 'a country code this service supports (docs/api.md, Location)')
          .transform((c) => c.toUpperCase()),
        city: z.string().min(1).max(100).optional(),
      })
      .strict()
      .optional()
      .meta({
        description:
          "Geo-targeting. country sets Accept-Language on every tier and the browser's locale, time zone and geolocation; with use_proxy " +
          '(or on tier 3.5) the premium proxy is one of that country. city is recorded with the request and narrows nothing yet.',
      }),
    headers: RequestHeaders.optional(),
    follow_redirects: z.boolean().default(true).meta({
      description: 'false: a redirect is not followed; its 3xx answer is the result (status_code, headers.location). HTTP tiers only: not with render_js, mode js or a force_tier of 3 and up, and escalation stops at tier 2.',
    }),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).default('GET').meta({
      description:
        'The method the target is fetched with. A browser navigates with GET, so any other method runs on the HTTP tiers (1 and 2) only: ' +
        'not with render_js, mode js or a force_tier of 3 and up (VALIDATION_ERROR), and escalation stops at tier 2.',
    }),
    body: z
      .string()
      .refine((b) => Buffer.byteLength(b, 'utf8') <= MAX_TARGET_REQUEST_BODY_BYTES, `body is at most ${sizeLabel(MAX_TARGET_REQUEST_BODY_BYTES)}`)
      .optional(),
    content_type: z.enum(['application/json', 'application/x-www-form-urlencoded', 'text/plain']).optional(),
    rag_options: RagOptions.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const a = r.advanced;
    // The browser's own options need the browser: render_js true, or mode js (which renders too).
    const rendered = a?.render_js === true || r.mode === 'js';
    for (const field of ['screenshot', 'generate_pdf', 'scroll_to_load'] as const) {
      if (a?.[field] === true && !rendered) {
        ctx.addIssue({ code: 'custom', path: ['advanced', field], message: `${field} requires render_js: true or mode js` });
      }
    }
    if (r.mode === 'js' && a?.render_js === false) {
      ctx.addIssue({ code: 'custom', path: ['advanced', 'render_js'], message: 'render_js false contradicts mode js, which renders', params: { code: 'conflict' } });
    }
    if (r.wait_until !== undefined && a?.wait_condition !== undefined && r.wait_until !== a.wait_condition) {
      ctx.addIssue({ code: 'custom', path: ['advanced', 'wait_condition'], message: `wait_condition is another name for wait_until; ${a.wait_condition} differs from ${r.wait_until}`, params: { code: 'conflict' } });
    }
    if (r.enable_scroll === false && a?.scroll_to_load === true) {
      ctx.addIssue({ code: 'custom', path: ['advanced', 'scroll_to_load'], message: 'scroll_to_load true contradicts enable_scroll false', params: { code: 'conflict' } });
    }
    if (a?.markdown === false && r.formats.every((f) => f === 'markdown')) {
      ctx.addIssue({ code: 'custom', path: ['advanced', 'markdown'], message: 'markdown false leaves no format to answer with; ask for another in formats', params: { code: 'conflict' } });
    }
    if (r.wait_for_timeout !== undefined && r.wait_for === undefined) {
      ctx.addIssue({ code: 'custom', path: ['wait_for_timeout'], message: 'wait_for_timeout is the wait for wait_for; send wait_for too' });
    }
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

/** The formats a scrape answers with: `formats`, with Markdown added or taken out by advanced.markdown. */
export function requestedFormats(input: Pick<ScrapeRequestInput, 'formats' | 'advanced'>): ScrapeRequestInput['formats'] {
  const markdown = input.advanced?.markdown;
  if (markdown === true && !input.formats.includes('markdown')) return [...input.formats, 'markdown'];
  if (markdown === false) return input.formats.filter((f) => f !== 'markdown');
  return input.formats;
}

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

/** A scrape's failure: the error envelope, and for a job that ran, its id and billing (refunded per SPEC 7.5). */
export const ScrapeError = ErrorEnvelope.extend({
  billing: Billing.optional().meta({ description: 'A job that ran and failed: what it was charged (0 when refunded), with refunded and reason.' }),
  job_id: z.string().optional().meta({ description: 'A job that ran and failed: its id, to poll.' }),
  version: z.literal('v1').optional(),
}).meta({ id: 'ScrapeError', description: 'The error envelope, with the failed job\'s billing and id when a job ran.' });

export const ScrapeAccepted = z
  .object({
    job_id: z.uuid(),
    poll_url: z.string().meta({ description: 'Always /api/v1/jobs/{job_id}.' }),
    status: z.enum(['pending', 'running', 'succeeded']).meta({ description: 'succeeded when sync: false met a result that was ready at once (a cache hit).' }),
    message: z.string(),
    version: z.literal('v1'),
  })
  .meta({ id: 'ScrapeAccepted' });

export const EstimateResult = z
  .object({
    url: z.string(),
    mode: z.string(),
    estimated_credits: z.number().meta({ description: 'The price of the first planned tier: what a scrape that succeeds at once costs.' }),
    max_possible_credits: z.number().meta({ description: 'The price of the most expensive planned tier: what is reserved (of the plan cut to what the account may spend).' }),
    estimated_tier: z.string(),
    tier_plan: z.array(z.string()).meta({ description: 'The tiers the scrape would try, in order.' }),
    runnable: z.boolean().meta({ description: 'False when a planned tier has no worker pool on this deployment (the scrape would answer 503).' }),
    affordable: z.boolean().meta({
      description:
        'False when what the account may spend (its balance, the API key\'s budget) does not cover the first tier: the scrape would answer 402 INSUFFICIENT_CREDITS. ' +
        'tier_plan and max_possible_credits are cut to what it covers, as the scrape cuts them.',
    }),
    available_tiers: z.array(z.string()),
    version: z.literal('v1'),
  })
  .meta({ id: 'ScrapeEstimate' });
