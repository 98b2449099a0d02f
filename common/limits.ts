/**
 * Public limits and internal time budgets (SPEC 8.4 and 2.x), each stated
 * once. The gateway validates against these, the control plane enforces them,
 * the OpenAPI document and docs quote them.
 */

/** A sync request answers by this deadline or hands off with a 202 (SPEC 4.1). */
export const SYNC_DEADLINE_MS = 85_000;

/**
 * How long an attempt runs before its worker reports STARTED (the job shows as running, job.started goes out); an
 * attempt that ends sooner reports its start with its end (decision 0035).
 */
export const STARTED_REPORT_DELAY_MS = 1_000;

/** An async job runs for 300 s by default and never more than 600 s (SPEC 8.4). */
export const JOB_DEADLINE_DEFAULT_MS = 300_000;
export const JOB_DEADLINE_MAX_MS = 600_000;
/** Default fetch timeout, seconds. */
export const DEFAULT_FETCH_TIMEOUT_S = 90;

/** The job's deadline: 300 s, or the fetch timeout plus a minute of queueing and processing, at most 600 s. */
export function jobDeadlineMs(timeoutSeconds: number): number {
  return Math.min(JOB_DEADLINE_MAX_MS, Math.max(JOB_DEADLINE_DEFAULT_MS, (timeoutSeconds || DEFAULT_FETCH_TIMEOUT_S) * 1000 + 60_000));
}

/** Stored sessions an account keeps at once (SPEC 8.4); deleted ones do not count. */
export const MAX_STORED_SESSIONS = 50;

/** Response caching (`cache: true`, SPEC 2.2 and 2.10): how long a result is reused, in seconds. */
export const CACHE_TTL_DEFAULT_S = 900;
export const CACHE_TTL_MIN_S = 60;
export const CACHE_TTL_MAX_S = 86_400;

/** PDF and OCR processing per document (SPEC 8.4): 120 s unless the operator sets TRAWL_DOCUMENT_TIMEOUT_S, at most 300 s. */
export const DOCUMENT_PROCESSING_DEFAULT_S = 120;
export const DOCUMENT_PROCESSING_MAX_S = 300;

/** How long the browser waits for a wait_for selector: 30 s by default, never more than 60 s (SPEC 8.4). */
export const WAIT_FOR_DEFAULT_MS = 30_000;
export const WAIT_FOR_MAX_MS = 60_000;

/** Extract jobs run for at most the sync deadline. */
export const EXTRACT_TIMEOUT_MS = SYNC_DEADLINE_MS;

/**
 * POST /api/v1/map (SPEC 2.9): URLs returned and link depth, within the
 * crawl's bounds (SPEC 8.4); the map answers within the sync deadline with
 * what it found by then. The history lists 1 to 100 maps a page.
 */
export const MAP_LIMITS = Object.freeze({
  maxPagesDefault: 500,
  maxPagesMax: 100_000,
  maxDepthDefault: 3,
  maxDepthMax: 50,
  /** Patterns per list, and characters per pattern. */
  maxPatterns: 100,
  maxPatternChars: 500,
  maxSearchChars: 500,
  listLimitDefault: 20,
  listLimitMax: 100,
  compareLimitDefault: 100,
  compareLimitMax: 1_000,
  /** The map job's time: the sync deadline less what the answer needs after it. */
  timeoutMs: SYNC_DEADLINE_MS - 5_000,
  /** Pages fetched at once for one map. */
  concurrency: 8,
});

/** /api/v1/extract content, UTF-8 bytes. */
export const MAX_EXTRACT_CONTENT_BYTES = 5 * 1024 * 1024;

/** extraction_prompt, characters: on /scrape and on /extract. */
export const MAX_SCRAPE_PROMPT_CHARS = 4_000;
export const MAX_EXTRACT_PROMPT_CHARS = 2_000;

/** A byte limit as people read it: whole megabytes or kilobytes when it is one, else bytes. */
export function sizeLabel(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** extraction_schema, serialized bytes (SPEC 8.4). */
export const MAX_EXTRACTION_SCHEMA_BYTES = 64 * 1024;

/** Request bodies: every route, and /api/v1/extract (5 MB of content escaped in JSON). */
export const REQUEST_BODY_LIMIT_BYTES = 1024 * 1024;
export const EXTRACT_BODY_LIMIT_BYTES = 12 * 1024 * 1024;

/** Scrape request bodies above this travel to the worker through Redis instead of inside the task. */
export const INLINE_BODY_LIMIT_BYTES = 64 * 1024;
/**
 * How long a job's parked input (a large body, extract content, a stored session's cookies, the caller's proxy)
 * outlives the job's deadline at most; it is dropped as soon as the job ends.
 */
export const PARKED_INPUT_GRACE_SECONDS = 60;

/** The body a scrape sends to its target (`body`), UTF-8 bytes. */
export const MAX_TARGET_REQUEST_BODY_BYTES = 1024 * 1024;

/**
 * Whole scrape request bodies (/scrape and /scrape/estimate): room for a 1 MB target `body` written as a
 * JSON string (escaping may up to double it) and the other fields.
 */
export const SCRAPE_REQUEST_LIMIT_BYTES = 2 * MAX_TARGET_REQUEST_BODY_BYTES + 64 * 1024;

/** JSON request bodies nested deeper than this (arrays and objects) are refused before they are parsed. */
export const MAX_JSON_DEPTH = 64;

/**
 * A request body an error answer left unread (too large, the wrong type, or a request refused before its
 * body was read) of a declared size up to this is read and dropped after the answer, so a client still
 * sending it can read the answer and keep its connection; a larger, chunked or stalled one, or a refused
 * compressed one, has its connection closed.
 */
export const REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;

/** A request body that sends nothing for this long is refused with 408 and its connection closed. */
export const BODY_IDLE_TIMEOUT_MS = 10_000;

/** Seconds a SERVICE_UNAVAILABLE answer (and a not-ready probe) asks the client to wait before trying again. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** RAG chunking defaults, in tokens (cl100k): the gateway validates overlap < chunk_size with these applied. */
export const RAG_DEFAULT_CHUNK_SIZE = 512;
export const RAG_DEFAULT_CHUNK_OVERLAP = 64;

/**
 * A limit on requests from one client address (SPEC 8.2): `limit` requests per `windowSeconds`,
 * counted under `name`. `per: 'email'` counts per e-mail address in the body instead.
 */
export interface IpLimit {
  name: string;
  limit: number;
  windowSeconds: number;
  per?: 'ip' | 'email';
}

/** The per-address limits of SPEC 8.2, each stated once; routes name them in their `ipLimits`. */
export const IP_LIMITS = {
  register: { name: 'auth-register', limit: 3, windowSeconds: 3_600 },
  login: { name: 'auth-login', limit: 5, windowSeconds: 900 },
  forgotPassword: { name: 'auth-forgot-password', limit: 3, windowSeconds: 3_600 },
  checkEmailPerIp: { name: 'auth-check-email', limit: 5, windowSeconds: 60 },
  checkEmailPerEmail: { name: 'auth-check-email-address', limit: 10, windowSeconds: 3_600, per: 'email' },
  checkout: { name: 'billing-checkout', limit: 5, windowSeconds: 60 },
  scrapeDemo: { name: 'scrape-demo', limit: 10, windowSeconds: 3_600 },
  healthJobs: { name: 'health-jobs', limit: 10, windowSeconds: 60 },
} as const satisfies Record<string, IpLimit>;

/** Passwords, characters (the hash work grows with length, so there is a ceiling too); e-mail addresses (RFC 5321 path limit); organization names. */
export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 256;
export const EMAIL_MAX_CHARS = 254;
export const ORGANIZATION_NAME_MAX_CHARS = 100;
/** Idempotency-Key header values, printable ASCII characters. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** A deposit through POST /api/v1/billing/checkout, US dollars (whole cents). */
export const CHECKOUT_MIN_USD = 5;
export const CHECKOUT_MAX_USD = 10_000;
/** success_url and cancel_url of a checkout, characters. */
export const CHECKOUT_URL_MAX_CHARS = 2_048;
/** GET /api/v1/usage: the window in days. */
export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_MAX_DAYS = 365;
/** A payment-provider webhook signed longer ago than this is refused as stale (or replayed). */
export const PAYMENT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** OAuth 2.0 (SPEC 5): an authorization code lives this long; client ids and secrets registered by the operator. */
export const OAUTH_CODE_TTL_SECONDS = 300;
export const OAUTH_CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const OAUTH_CLIENT_SECRET_MIN_CHARS = 32;
/** Authorize: `state` (echoed unchanged), `source` (named in the key), `redirect_uri`, characters. */
export const OAUTH_STATE_MAX_CHARS = 1_024;
export const OAUTH_SOURCE_MAX_CHARS = 64;
export const OAUTH_REDIRECT_URI_MAX_CHARS = 2_048;

/** API keys: name length; usage reads look back at most this many days and page at most this many requests. */
export const API_KEY_NAME_MAX_CHARS = 100;
export const API_KEY_USAGE_MAX_DAYS = 365;
export const API_KEY_USAGE_MAX_PAGE_SIZE = 100;

/** Webhooks (SPEC 6.4, 8.4): subscriptions per user, attempts per delivery and the default waits between them, the time a receiver has to answer 2xx, failed attempts in a row that disable a subscription, the largest body sent (bytes). */
export const WEBHOOKS_PER_USER = 10;
export const WEBHOOK_MAX_ATTEMPTS = 3;
export const WEBHOOK_RETRY_DELAYS_MS = [60_000, 300_000] as const;
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_DISABLE_AFTER_FAILURES = 5;
export const WEBHOOK_MAX_BODY_BYTES = 1_000_000;
/** Subscription names and URLs, characters; deliveries listed at most per request (default 50). */
export const WEBHOOK_NAME_MAX_CHARS = 100;
export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 50;
export const WEBHOOK_DELIVERIES_MAX_LIMIT = 200;
export const WEBHOOK_USER_AGENT = 'Service-Webhook/1.0';

/** Change tracking of crawls (docs/decisions/0016-change-tracking.md). */
export const CHANGE_TRACKING_LIMITS = Object.freeze({
  /** Normalised content longer than this is compared by hash only: it is not kept for diffs. */
  maxStoredContentChars: 1_000_000,
  /** Removed URLs listed in a crawl's change_tracking summary (the count is always complete). */
  removedUrlsShown: 1_000,
  /** Lines of context around each change of a content diff. */
  diffContextLines: 3,
});

/**
 * Crawl results written to a bucket (storage s3/r2, output s3/gcs): pages per part object; a part is cut once this
 * many pages wait, the crawl has ended, or the oldest waiting page has waited CRAWL_PART_WAIT_MS.
 */
export const CRAWL_PART_PAGES = 500;
export const CRAWL_PART_WAIT_MS = 10_000;
/** Objects in Trawl's own bucket are kept this long (SPEC 2.10: 30 days). */
export const CRAWL_STORAGE_RETENTION_DAYS = 30;
/** A presigned download URL lives at most this long (SigV4 allows 7 days), never past the object's retention. */
export const PRESIGNED_URL_MAX_SECONDS = 7 * 24 * 3600;
/** A part that could not be written to Trawl's own bucket is tried again after 2^attempts seconds, at most this long. */
export const CRAWL_STORAGE_RETRY_MAX_MS = 300_000;
