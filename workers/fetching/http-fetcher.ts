import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { ACCEPT_ENCODING, parseContentEncoding, readBody } from './body-reader.js';
import { CHALLENGE_SCAN_CHARS, detectChallenge, hasBlockMarkers } from './challenge-detector.js';
import { asciiView, detectCharset } from './charset.js';
import { isTextualMime, parseContentType, sniffMime, SNIFF_BYTES } from './content-type.js';
import type { FetchFailure, FetchOutcome, FetchTimings } from './fetch-result.js';
import { classifyFetchError } from './network-errors.js';
import { refusalCaptcha } from './page-walls.js';
import { acceptLanguageFor, DEFAULT_LOCALE } from '../../common/locations.js';
import { RESERVED_REQUEST_HEADERS } from '../../common/request-headers.js';
import { assertUrlAllowed, createGuardedDispatcher, type GuardOptions } from '../../common/ssrf-guard.js';

export interface FetchRequest {
  url: string;
  /** GET by default. */
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** The body's media type; application/json when a body is sent without one. */
  contentType?: string;
  /** Bounds the whole fetch: every redirect hop, headers and body. */
  timeoutMs: number;
  /** Ends the fetch early (answered as TIMEOUT), e.g. when the work it is for was abandoned. */
  signal?: AbortSignal;
  /** Media types read besides the textual ones (a map reads gzipped sitemaps). */
  acceptMimes?: readonly string[];
  /** Cookies for the target's origin, sent as a Cookie header that a redirect to another origin drops. */
  cookies?: Record<string, string>;
  /** false: a redirect is the answer (its status and Location header), not followed. */
  followRedirects?: boolean;
  /** Accept-Language in place of the client's own (a location's); an accept-language in `headers` wins over it. */
  acceptLanguage?: string;
}

export interface FetchConfig {
  guard: GuardOptions;
  /** Largest body accepted, on the wire and decoded; 10 MB in the default configuration. */
  maxBytes: number;
  /** Redirects followed before giving up; 10 in the default configuration. */
  maxRedirects: number;
  userAgent: string;
  /** The shared guarded agent, created once per process; one is made (and closed) per fetch without it. */
  dispatcher?: Dispatcher;
  /** Another HTTP client than undici (tier 2's impit); it must connect through the SSRF guard itself. */
  transport?: HttpTransport;
}

/** One hop's answer, as every transport gives it. */
export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** The client has already undone the content encoding. */
  decoded: boolean;
}

/**
 * An HTTP client other than undici: it sends one request without following
 * redirects (each hop is checked here first) and brings its own header set,
 * to which only the caller's headers and the content type are added.
 */
export interface HttpTransport {
  /** `signal` ends the request at the fetch's deadline; `timeoutMs` is the time left until then, for a client that needs its own bound. */
  send(url: URL, init: { method: string; headers: Record<string, string>; body: string | undefined; signal: AbortSignal; timeoutMs: number }): Promise<TransportResponse>;
}


/** Redirects followed before a fetch gives up, in every pool that fetches. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

const DEFAULT_HEADERS: Record<string, string> = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': acceptLanguageFor(DEFAULT_LOCALE),
};

/** Credentials meant for one origin are not sent on to another, as browsers do on redirects. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function requestHeaders(req: FetchRequest, config: FetchConfig): Record<string, string> {
  const headers: Record<string, string> = config.transport ? {} : { 'user-agent': config.userAgent, ...DEFAULT_HEADERS };
  if (req.acceptLanguage) headers['accept-language'] = req.acceptLanguage;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!RESERVED_REQUEST_HEADERS.has(lower)) headers[lower] = value;
  }
  const cookies = Object.entries(req.cookies ?? {});
  // Names and values were checked for header-safe characters when they were accepted.
  if (cookies.length > 0) headers['cookie'] = cookies.map(([name, value]) => `${name}=${value}`).join('; ');
  if (!config.transport) headers['accept-encoding'] = ACCEPT_ENCODING;
  // A content type goes only with a body, or with a method that carries one (a POST with an explicit type and no body).
  const hasBody = req.body !== undefined && req.body !== '';
  const method = (req.method ?? 'GET').toUpperCase();
  if (hasBody || (req.contentType && method !== 'GET' && method !== 'HEAD')) {
    headers['content-type'] = req.contentType || headers['content-type'] || 'application/json';
  }
  return headers;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The method and body of the next hop: 303 turns anything but HEAD into a
 * GET, and 301/302 turn a POST into a GET, dropping the body (RFC 9110 and
 * what every browser does); 307/308 repeat the request as it was.
 */
function nextHop(status: number, method: string, body: string | undefined): { method: string; body: string | undefined } {
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    return { method: 'GET', body: undefined };
  }
  return { method, body };
}

/** The outcome decided by the status alone, before any body is read. */
export function classifyStatusBeforeBody(status: number): Omit<FetchFailure, 'kind' | 'statusCode' | 'finalUrl' | 'timings'> | null {
  if (status === 404 || status === 410) return { code: 'TARGET_NOT_FOUND', message: `The target answered ${status}`, escalate: false };
  if (status === 401) return { code: 'REQUIRES_AUTH', message: 'The target requires authentication (401)', escalate: false };
  if (status === 402) return { code: 'PAYWALL_DETECTED', message: 'The target requires payment (402)', escalate: false };
  if (status >= 500 && status !== 503) return { code: 'TARGET_UNAVAILABLE', message: `The target answered ${status}`, escalate: true };
  return null;
}

/**
 * Refusals whose page is worth reading: a bot challenge, or a captcha standing in for the content (the captcha
 * tier may pass them where the others are refused).
 */
export const REFUSAL_STATUSES: ReadonlySet<number> = new Set([403, 429, 503]);

/**
 * 403, 429 and 503 carry a page worth reading: it tells a challenge or a
 * captcha from a block, a rate limit or an outage. `head` is the body's start as text.
 */
export function classifyStatusAfterBody(
  status: number,
  headers: Record<string, string>,
  head: string,
): Omit<FetchFailure, 'kind' | 'statusCode' | 'finalUrl' | 'timings'> | null {
  const evidence = { headers, body: head };
  const vendor = status === 403 || status === 503 || (status >= 200 && status < 300) ? detectChallenge(evidence) : null;
  if (vendor) return { code: 'CHALLENGE_DETECTED', message: `The target answered with a ${vendor} bot challenge (${status})`, escalate: true };
  const captcha = REFUSAL_STATUSES.has(status) ? refusalCaptcha(head) : null;
  if (captcha) return captcha;
  if (status === 403) return { code: 'BLOCKED', message: 'The target refused this client (403)', escalate: true };
  if (status === 429) return { code: 'BLOCKED', message: 'The target is rate limiting this client (429)', escalate: true };
  if (status === 503) {
    return hasBlockMarkers(evidence)
      ? { code: 'BLOCKED', message: 'The target answered 503 with a bot block page', escalate: true }
      : { code: 'TARGET_UNAVAILABLE', message: 'The target answered 503', escalate: true };
  }
  return null;
}

/** What makes two hops the same request for loop detection: the fragment is never sent. */
function requestKey(method: string, url: URL): string {
  const withoutFragment = new URL(url);
  withoutFragment.hash = '';
  return `${method} ${withoutFragment.href}`;
}

/** Drops a body unread; the connection closes unless the body had already ended. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function undiciTransport(dispatcher: Dispatcher): HttpTransport {
  return {
    async send(url, init) {
      const res = await request(url, { method: init.method as Dispatcher.HttpMethod, headers: init.headers, body: init.body, dispatcher, signal: init.signal });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body, decoded: false };
    },
  };
}

/**
 * Fetches one URL over plain HTTP, as tier 1 and every pool that fetches
 * without a browser do: through the SSRF-guarded
 * dispatcher, redirects followed by hand so every hop is checked before it
 * connects, the whole fetch bounded by one deadline, the body capped and
 * decompressed (decoding it to text is left to where it is processed), and the result classified into the
 * outcomes the control plane acts on. Never throws for a target's behaviour.
 */
export async function fetchPage(req: FetchRequest, config: FetchConfig): Promise<FetchOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeLeft = () => Math.max(1, req.timeoutMs - elapsed());
  const ownDispatcher = config.dispatcher || config.transport ? undefined : createGuardedDispatcher(config.guard);
  const transport = config.transport ?? undiciTransport((config.dispatcher ?? ownDispatcher)!);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), req.timeoutMs);
  const stop = () => deadline.abort();
  if (req.signal?.aborted) deadline.abort();
  req.signal?.addEventListener('abort', stop, { once: true });

  let currentUrl = req.url;
  let statusCode: number | undefined;
  let ttfbMs: number | undefined;
  const timings = (): FetchTimings => ({ ttfbMs: ttfbMs ?? elapsed(), totalMs: elapsed() });
  const fail = (failure: Omit<FetchFailure, 'kind'>): FetchFailure => ({ kind: 'failed', finalUrl: currentUrl, timings: timings(), ...failure });

  try {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail({ code: 'URL_NOT_ALLOWED', message: 'The URL cannot be parsed', escalate: false });
    }
    const originalOrigin = url.origin;
    let method = (req.method || 'GET').toUpperCase();
    let body = req.body;
    let headers = requestHeaders(req, config);
    const redirects: string[] = [];
    const visited = new Set<string>();

    for (;;) {
      currentUrl = url.href;
      assertUrlAllowed(url, config.guard);
      visited.add(requestKey(method, url));
      const res = await transport.send(url, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body, signal: deadline.signal, timeoutMs: timeLeft() });
      statusCode = res.statusCode;
      const responseHeaders = flattenHeaders(res.headers);

      const location = responseHeaders['location'];
      if (REDIRECT_STATUSES.has(res.statusCode) && location !== undefined && req.followRedirects !== false) {
        discard(res.body);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return fail({ code: 'NETWORK_ERROR', message: `The redirect from ${url.href} points to an invalid URL`, statusCode, escalate: false });
        }
        redirects.push(url.href);
        if (redirects.length > config.maxRedirects) {
          return fail({ code: 'NETWORK_ERROR', message: `The target redirected more than ${config.maxRedirects} times`, statusCode, escalate: false });
        }
        ({ method, body } = nextHop(res.statusCode, method, body));
        if (body === undefined) {
          const { 'content-type': _dropped, ...rest } = headers;
          headers = rest;
        }
        if (next.origin !== originalOrigin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.includes(name)));
        }
        if (visited.has(requestKey(method, next))) {
          return fail({ code: 'NETWORK_ERROR', message: `The target redirects in a loop (${next.href} again)`, statusCode, escalate: false });
        }
        // A fragment survives a redirect that does not name its own.
        if (!next.hash && url.hash) next.hash = url.hash;
        url = next;
        continue;
      }

      ttfbMs = elapsed();
      return await finishResponse(res.statusCode, responseHeaders, res.body, {
        method,
        decoded: res.decoded,
        url,
        redirects,
        maxBytes: config.maxBytes,
        acceptMimes: req.acceptMimes ?? [],
        signal: deadline.signal,
        timings,
        fail,
      });
    }
  } catch (err) {
    if (deadline.signal.aborted) {
      return fail({ code: 'TIMEOUT', message: `The fetch was stopped after ${req.timeoutMs} ms, what was left of the request's timeout`, statusCode, escalate: false });
    }
    const classified = classifyFetchError(err, hostOf(currentUrl));
    return fail({ ...classified, statusCode });
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', stop);
    if (ownDispatcher) void ownDispatcher.destroy();
  }
}

interface FinishContext {
  method: string;
  decoded: boolean;
  url: URL;
  redirects: string[];
  maxBytes: number;
  acceptMimes: readonly string[];
  signal: AbortSignal;
  timings: () => FetchTimings;
  fail: (failure: Omit<FetchFailure, 'kind'>) => FetchFailure;
}

async function finishResponse(status: number, headers: Record<string, string>, source: Readable, ctx: FinishContext): Promise<FetchOutcome> {
  const statusCode = status;
  const early = classifyStatusBeforeBody(status);
  if (early) {
    discard(source);
    return ctx.fail({ ...early, statusCode });
  }

  const declared = headers['content-length'] === undefined ? NaN : Number(headers['content-length']);
  const declaredType = parseContentType(headers['content-type']);
  const readable = (mime: string) => isTextualMime(mime) || ctx.acceptMimes.includes(mime);
  if (declaredType && !readable(declaredType.mime)) {
    discard(source);
    const fromStatus = classifyStatusAfterBody(status, headers, '');
    if (fromStatus) return ctx.fail({ ...fromStatus, statusCode });
    return ctx.fail({ code: 'UNSUPPORTED_CONTENT_TYPE', message: `The content type ${declaredType.mime} is not supported in this mode`, statusCode, escalate: false });
  }
  if (declared > ctx.maxBytes) {
    discard(source);
    return ctx.fail({ code: 'CONTENT_TOO_LARGE', message: `The response declares ${declared} bytes, over the ${ctx.maxBytes} byte limit`, statusCode, escalate: false });
  }

  let sniffed: string | undefined;
  const bytes = await readBody(source, {
    encodings: ctx.method === 'HEAD' || ctx.decoded ? [] : parseContentEncoding(headers['content-encoding']),
    maxBytes: ctx.maxBytes,
    signal: ctx.signal,
    inspectBytes: SNIFF_BYTES,
    inspect: declaredType
      ? undefined
      : (head) => {
          sniffed = sniffMime(head);
          return readable(sniffed) ? null : `The response has no content type and its bytes look like ${sniffed}, which is not supported in this mode`;
        },
  });
  const mime = declaredType?.mime ?? sniffed ?? 'text/plain';
  const charset = detectCharset(bytes, mime, declaredType?.charset);

  const verdict = classifyStatusAfterBody(status, headers, asciiView(bytes, charset, CHALLENGE_SCAN_CHARS));
  if (verdict) return ctx.fail({ ...verdict, statusCode, bytes: bytes.length });

  return {
    kind: 'ok',
    statusCode,
    finalUrl: ctx.url.href,
    redirects: ctx.redirects,
    headers,
    contentType: mime,
    charset,
    body: bytes,
    bytes: bytes.length,
    timings: ctx.timings(),
  };
}
