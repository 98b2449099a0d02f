import { JS_SHELL } from '../../common/tier-escalation.js';
import { TrawlError } from '../../common/errors.js';
import type { FetchTask } from '../../proto/gen/trawl/v1/work_pb.js';
import { DEFAULT_OCR_LANGUAGE, ocrTextToHtml, type OcrEngine } from '../document/ocr.js';
import { pipelineInput, type ContentPipeline } from '../pipeline/content-pipeline.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import type { AttemptScope, AttemptWork } from '../runtime/attempt.js';
import type { DomainLease } from '../runtime/domain-lease.js';
import { decodeTextPieces } from './charset.js';
import type { DocumentText } from '../html/document-text.js';
import { acceptedDocumentMimes, documentKind, PDF_MIME, type DocumentKind } from './document-types.js';
import type { FetchedPage, FetchOutcome } from './fetch-result.js';
import { isJavaScriptShell, SHELL_SCAN_BYTES } from './js-shell-detector.js';
import { detectWall, WALL_SCAN_CHARS, type PageWall } from './page-walls.js';
import { createPremiumRotation, routeFor, throughRoute, type ProxyRouteDeps } from './proxy-route.js';
import { acceptLanguageFor, countryProfile, type CountryProfile } from '../../common/locations.js';

/** One fetch as a tier makes it: the task, with the body read and the time left. */
export interface PageRequest {
  url: string;
  method: string;
  body: string | undefined;
  contentType: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Sent to the target's origin only: advanced.cookies and a stored session's. */
  cookies: Record<string, string>;
  /** Media types read besides the textual ones (PDFs and images, by the request's mode). */
  acceptMimes: readonly string[];
  /** The caller's request headers for the target. */
  headers: Record<string, string>;
  /** A location's Accept-Language, for the HTTP tiers (the browser tiers present the location's locale themselves). */
  acceptLanguage?: string;
  /** false: a redirect is the answer. */
  followRedirects: boolean;
  /** location: what the browser tiers present (locale, time zone, geolocation). */
  location?: CountryProfile;
  /** The attempt's own guarded SOCKS5 proxy, sending through an upstream proxy (proxy-route.ts); absent: the tier connects as usual. */
  proxyUrl?: string;
  /** The account the page is loaded for: a tier with warm pages reuses only this account's tabs. */
  owner?: string;
}

/** How a tier fetches a page: undici, impit or the browser. Never throws for a target's behaviour. */
export type PageFetcher = (req: PageRequest, task: FetchTask) => Promise<FetchOutcome>;

export interface FetchWorkDeps {
  /** Where large request bodies and stored sessions' cookies wait (the task carries their key or a flag instead). */
  readInput(key: string): Promise<string | null>;
  /** The key of a job's stored-session cookies. */
  sessionCookiesKey(jobId: string): string;
  /** Reads images (mode ocr, advanced.ocr); a pool without it refuses them. */
  ocr?: { engine: OcrEngine; budgetMs: number };
  lease: DomainLease;
  fetch: PageFetcher;
  pipeline: ContentPipeline;
  workerId: string;
  /** Whether this tier's answers are checked for JavaScript-only shells (the HTTP tiers). */
  detectShells: boolean;
  /** Upstream proxies: the premium pool, the guard, and where a caller's own proxy URL waits. */
  proxies: ProxyRouteDeps;
}

/** Bytes of an HTML page's start decoded for the checks made on every page (walls, shells). */
const PAGE_HEAD_BYTES = Math.max(SHELL_SCAN_BYTES, WALL_SCAN_CHARS);

/** The start of an HTML page's body, decoded once for its checks (in pieces: see document-text.ts). */
export function decodePageHead(body: Uint8Array, charset: string): DocumentText {
  return decodeTextPieces(body.subarray(0, PAGE_HEAD_BYTES), charset);
}

/** The start of an HTML page for its checks; null for other content. */
function pageHead(page: FetchedPage): DocumentText | null {
  return page.contentType === 'text/html' ? decodePageHead(page.body, page.charset) : null;
}

/** What a successful fetch is besides a page, for the control plane to act on (AttemptReport.classification). */
export function classifyPage(page: FetchedPage, detectShells: boolean, head: DocumentText | null = detectShells ? pageHead(page) : null): string {
  return detectShells && head !== null && isJavaScriptShell(head) ? JS_SHELL : '';
}

/** The wall an HTML page puts in front of its content (a sign-in form, a captcha, a paywall), if any. */
function wallOf(page: FetchedPage, head: DocumentText | null, requestedUrl: string): PageWall | null {
  return head === null ? null : detectWall({ html: head, requestedUrl, finalUrl: page.finalUrl });
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** How often a held domain slot is extended while its fetch runs. */
const LEASE_REFRESH_MS = 5_000;

/** Why a response does not fit the request's mode, or null when it does. */
function refusedByMode(mode: string, kind: DocumentKind, contentType: string): string | null {
  if (mode === 'pdf' && kind !== 'pdf') return `mode "pdf" needs a PDF; the URL answered ${contentType}`;
  if (mode === 'ocr' && kind !== 'image') return `mode "ocr" needs an image (PNG, JPEG, GIF, TIFF, BMP or WebP); the URL answered ${contentType}`;
  return null;
}

/** A fetched document for the pipeline; an HTML page's conversion already under way (started while its checks ran). */
export type FetchedInput = FetchedPage & { document: DocumentKind; converting?: Promise<Uint8Array> };

/**
 * What every fetch tier does: the page fetched (by the tier's own client)
 * while holding a slot of its domain, classified, and the content pipeline
 * (convert). An HTML page's conversion runs on its thread while the page's
 * checks run on the event loop, so a sync scrape waits for the longer of the
 * two, not for both.
 */
export function createFetchWork(deps: FetchWorkDeps): AttemptWork<'fetch', FetchedInput> {
  const pickPremium = createPremiumRotation();
  /** The content pipeline on a fetched document (a PDF read into HTML on the pipeline's thread, an image read by OCR first). */
  async function convert(task: FetchTask, page: FetchedPage & { document: DocumentKind }, scope: AttemptScope): Promise<Uint8Array> {
    let document = { bytes: page.body as Uint8Array, charset: page.charset, contentType: page.document === 'pdf' ? PDF_MIME : page.contentType };
    let onlyMainContent = task.pipeline?.onlyMainContent ?? false;
    if (page.document === 'image') {
      if (!deps.ocr) throw new TrawlError('UNSUPPORTED_CONTENT_TYPE', 'Images are read by OCR on the document pool (mode ocr)');
      const budget = Math.min(deps.ocr.budgetMs, scope.deadlineMs - Date.now());
      const text = await deps.ocr.engine.read(page.body, { languages: task.ocrLanguage || DEFAULT_OCR_LANGUAGE, timeoutMs: Math.max(1, budget) });
      document = { bytes: Buffer.from(ocrTextToHtml(text, ''), 'utf8'), charset: 'utf-8', contentType: 'text/html' };
      // An image's text is all content: there is no page furniture to leave out.
      onlyMainContent = false;
    }
    return deps.pipeline.process(
      {
        bytes: document.bytes,
        charset: document.charset,
        input: { ...pipelineInput(task.pipeline), onlyMainContent, contentType: document.contentType, url: page.finalUrl, endpoint: 'scrape' },
        source: {
          url: task.url,
          finalUrl: page.finalUrl,
          statusCode: page.statusCode,
          headers: page.headers,
          responseTimeMs: page.timings.totalMs,
          sizeBytes: page.bytes,
          includeRawHtml: task.includeRawHtml,
          contentAsFormats: false,
          screenshotUrl: page.screenshotUrl,
          pdfUrl: page.pdfUrl,
        },
      },
      { deadlineMs: scope.deadlineMs },
    );
  }
  return {
    payload: 'fetch',
    processFailureCode: 'EXTRACTION_FAILED',
    cacheOf: (task) => (task.cacheIdentity ? { identity: task.cacheIdentity, ttlSeconds: task.cacheTtlS } : null),

    async acquire(task, scope) {
      const started = Date.now();
      let host: string;
      try {
        host = new URL(task.url).hostname;
      } catch {
        throw new AttemptFailure('URL_NOT_ALLOWED', 'The URL cannot be parsed');
      }
      const timeoutMs = Math.min(task.timeoutMs, scope.deadlineMs - started);
      // Both go out with the attempt's finished check, in one round trip.
      const leasing = deps.lease.acquireWithWait(host, `${deps.workerId}:${scope.ref.attemptId}`, { waitMs: timeoutMs, signal: scope.signal });
      const parked = task.inputKey && !task.body ? deps.readInput(task.inputKey) : null;
      const sessionCookies = task.sessionCookies ? deps.readInput(deps.sessionCookiesKey(scope.ref.jobId)) : null;
      // Awaited below, after the lease; a failure before then must not count as unhandled.
      parked?.catch(() => undefined);
      sessionCookies?.catch(() => undefined);
      const lease = await leasing;
      const release = () => void lease?.release().catch(() => undefined);
      let body = task.body;
      let cookies: Record<string, string> = { ...task.cookies };
      try {
        await scope.admitted;
        if (parked) {
          const stored = await parked;
          if (stored === null) throw new AttemptFailure('INTERNAL_ERROR', 'The request body is no longer available');
          body = stored;
        }
        if (sessionCookies) {
          const stored = await sessionCookies;
          if (stored === null) throw new AttemptFailure('INTERNAL_ERROR', "The stored session's cookies are no longer available");
          cookies = { ...cookies, ...(JSON.parse(stored) as Record<string, string>) };
        }
      } catch (err) {
        release();
        throw err;
      }
      if (!lease) throw new AttemptFailure('TIMEOUT', `Every concurrency slot for ${host} stayed busy until the timeout`);

      // A failed refresh (a Redis blip) only risks the slot expiring early; it must not take the worker down.
      const keepAlive = setInterval(() => void lease.refresh().catch(() => undefined), LEASE_REFRESH_MS);
      let outcome;
      try {
        const route = await routeFor(task, scope.ref.tier, scope.ref.jobId, { ...deps.proxies, pick: pickPremium });
        const location = task.locationCountry ? countryProfile(task.locationCountry) : undefined;
        outcome = await throughRoute(route, deps.proxies.guard, (proxyUrl) =>
          deps.fetch(
            {
              url: task.url,
              method: task.method,
              body,
              contentType: task.contentType,
              timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
              signal: scope.signal,
              cookies,
              acceptMimes: acceptedDocumentMimes(task.mode, task.ocr),
              headers: lowerCaseNames(task.headers),
              followRedirects: !task.keepRedirects,
              ...(location ? { location, acceptLanguage: acceptLanguageFor(location.locale) } : {}),
              ...(proxyUrl ? { proxyUrl } : {}),
              ...(scope.ref.accountId ? { owner: scope.ref.accountId } : {}),
            },
            task,
          ),
        );
      } finally {
        clearInterval(keepAlive);
        release();
      }
      const fetchMs = BigInt(Date.now() - started);
      if (outcome.kind === 'failed') {
        throw new AttemptFailure(outcome.code, outcome.message, {
          escalate: outcome.escalate,
          statusCode: outcome.statusCode ?? 0,
          finalUrl: outcome.finalUrl ?? '',
          bytes: BigInt(outcome.bytes ?? 0),
          fetchMs,
          ...(outcome.classification ? { classification: outcome.classification } : {}),
        });
      }
      const report = { statusCode: outcome.statusCode, finalUrl: outcome.finalUrl, bytes: BigInt(outcome.bytes), fetchMs };
      const kind = documentKind(outcome.contentType, outcome.body);
      const refused = refusedByMode(task.mode, kind, outcome.contentType);
      if (refused) throw new AttemptFailure('UNSUPPORTED_CONTENT_TYPE', refused, report);
      const head = pageHead(outcome);
      const page = { ...outcome, document: kind };
      // An HTML page's conversion starts now, on a pipeline thread, while its walls and shell are checked here on
      // the event loop (from its head, decoded above: the body moves to the thread). A page that turns out walled
      // drops the result; the thread's work on it is the only cost.
      const processStartedMs = Date.now();
      const converting = head !== null ? convert(task, page, scope) : undefined;
      converting?.catch(() => undefined);
      const wall = wallOf(outcome, head, task.url);
      if (wall) throw new AttemptFailure(wall.code, wall.message, { ...report, escalate: wall.escalate, classification: wall.classification ?? '' });
      const classified = { ...report, classification: classifyPage(outcome, deps.detectShells, head) };
      return converting ? { input: { ...page, converting }, report: classified, processStartedMs } : { input: page, report: classified };
    },

    process: (task, page, scope) => page.converting ?? convert(task, page, scope),
  };
}
