/** What every fetch tier answers: a page as bytes with what is known about them, or a classified failure. */

export interface FetchTimings {
  /** From the start of the fetch to the final response's headers. */
  ttfbMs: number;
  totalMs: number;
}

export type FetchFailureCode =
  | 'TIMEOUT'
  | 'NETWORK_ERROR'
  | 'CONTENT_TOO_LARGE'
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'URL_NOT_ALLOWED'
  | 'TARGET_NOT_FOUND'
  | 'TARGET_UNAVAILABLE'
  | 'REQUIRES_AUTH'
  | 'PAYWALL_DETECTED'
  | 'BLOCKED'
  | 'CHALLENGE_DETECTED'
  | 'EXTRACTION_FAILED';

export interface FetchedPage {
  kind: 'ok';
  statusCode: number;
  finalUrl: string;
  /** Every URL that answered with a redirect, in order; finalUrl answered the last one. */
  redirects: string[];
  /** Response headers, names lower-case, repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The media type alone, lower-case. */
  contentType: string;
  /** The encoding the body is in (see decodeText); the body is decoded once, where it is processed. */
  charset: string;
  /** The body as received, decompressed; a buffer of its own, so it can be moved to another thread. */
  body: Buffer;
  /** Body size in bytes. */
  bytes: number;
  timings: FetchTimings;
  /** Where the browser's screenshot and PDF of the page are served, when they were asked for. */
  screenshotUrl?: string;
  pdfUrl?: string;
}

export interface FetchFailure {
  kind: 'failed';
  code: FetchFailureCode;
  message: string;
  statusCode?: number;
  finalUrl?: string;
  bytes?: number;
  timings?: FetchTimings;
  /** True when a stronger tier might succeed (blocked, challenge, rate limited, target error). */
  escalate: boolean;
  /** What the page was, when the control plane chooses the next tier by it (a captcha: the captcha tier). */
  classification?: string;
}

export type FetchOutcome = FetchedPage | FetchFailure;
