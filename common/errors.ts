/**
 * The one error type with public codes. Every failure the public API reports
 * is a TrawlError; its code and HTTP status come from this table so the
 * gateway, control plane and workers agree on them.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  SESSION_COOKIES_CONFLICT: 400,
  SESSION_DOMAIN_MISMATCH: 400,
  EXCEEDS_COST_LIMIT: 400,
  URL_NOT_ALLOWED: 400,
  /** A crawl asked for `storage` s3 or r2 and the operator has configured no such bucket. */
  STORAGE_NOT_CONFIGURED: 400,
  INVALID_SIGNATURE: 400,
  UNKNOWN_OAUTH_CLIENT: 400,
  REDIRECT_URI_NOT_ALLOWED: 400,
  /** The OAuth token endpoint's own codes (RFC 6749 5.2): lower case, answered with `error_description` too. */
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_client: 401,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  INVALID_SESSION_TOKEN: 401,
  SESSION_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  REQUIRES_AUTH: 401,
  INSUFFICIENT_CREDITS: 402,
  PAYWALL_DETECTED: 402,
  SUBSCRIPTION_INACTIVE: 402,
  DEPOSIT_REQUIRED: 402,
  KEY_BUDGET_EXCEEDED: 402,
  BLOCKED_BY_ANTIBOT: 403,
  CHALLENGE_DETECTED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  WEBHOOK_URL_EXISTS: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  WELCOME_BONUS_NOT_REDUCED: 409,
  WELCOME_BONUS_ALREADY_UNLOCKED: 409,
  RESULT_UNAVAILABLE: 410,
  SESSION_INACTIVE: 410,
  CONTENT_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_CONTENT_TYPE: 415,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SCRAPE_FAILED: 422,
  EXTRACTION_FAILED: 422,
  TARGET_NOT_FOUND: 422,
  CONTENT_BLANK: 422,
  CONTENT_OVER_LIMIT: 422,
  RATE_LIMIT_EXCEEDED: 429,
  SESSION_LIMIT_REACHED: 429,
  /** Dispatch over its entitlement (SPEC 7.4): lower case, answered with `detail` and `docs_url`. */
  rate_limit_exceeded: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  NETWORK_ERROR: 503,
  TARGET_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  OAUTH_NOT_CONFIGURED: 503,
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

/** SESSION_EXPIRED is a dashboard token's (401), and with this status a stored session's whose cookies expired (SPEC 7.3). */
export const STORED_SESSION_EXPIRED_STATUS = 410;

export class TrawlError extends Error {
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly details: Record<string, unknown> | undefined;

  /** `httpStatus` is the code's own (ERROR_STATUS) unless given: SPEC 7.3 answers a code with another status in one case (STORED_SESSION_EXPIRED_STATUS). */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, httpStatus: number = ERROR_STATUS[code]) {
    super(message);
    this.name = 'TrawlError';
    this.code = code;
    this.httpStatus = httpStatus;
    this.details = details;
  }
}

export interface PublicFailure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Any error as a public failure: a TrawlError keeps its code, message and
 * details; anything else takes `fallbackCode` with its own message (or
 * `fallbackMessage` when it is not an Error).
 */
export function publicFailure(err: unknown, fallbackCode: string, fallbackMessage: string): PublicFailure {
  if (err instanceof TrawlError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  return { code: fallbackCode, message: err instanceof Error ? err.message : fallbackMessage };
}
