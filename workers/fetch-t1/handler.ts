import { TrawlError } from '../../common/errors.js';
import { DEFAULT_OCR_LANGUAGE, ocrTextToHtml, type OcrEngine } from '../document/ocr.js';
import { acceptedDocumentMimes, documentKind, PDF_MIME, type DocumentKind } from '../fetching/document-types.js';
import type { FetchedPage } from '../fetching/fetch-result.js';
import { pipelineInput, type ContentPipeline } from '../pipeline/content-pipeline.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import type { AttemptWork } from '../runtime/attempt.js';
import type { DomainLease } from '../runtime/domain-lease.js';
import { fetchPage, type FetchConfig } from '../fetching/http-fetcher.js';

export interface FetchWorkDeps {
  /** Reads images (mode ocr, advanced.ocr); a pool without it refuses them. */
  ocr?: { engine: OcrEngine; budgetMs: number };
  /** Where large request bodies and stored sessions' cookies wait (the task carries their key or a flag instead). */
  readInput(key: string): Promise<string | null>;
  /** The key of a job's stored-session cookies. */
  sessionCookiesKey(jobId: string): string;
  lease: DomainLease;
  fetchConfig: FetchConfig;
  pipeline: ContentPipeline;
  workerId: string;
}

/** How often a held domain slot is extended while its fetch runs. */
const LEASE_REFRESH_MS = 5_000;

/** Tier 1: the page fetched over plain HTTP while holding a slot of its domain, then the content pipeline. */
/** A Cookie request header from names and values (checked for header-safe characters when they were accepted). */
function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

/** Why a response does not fit the request's mode, or null when it does. */
function refusedByMode(mode: string, kind: DocumentKind, contentType: string): string | null {
  if (mode === 'pdf' && kind !== 'pdf') return `mode "pdf" needs a PDF; the URL answered ${contentType}`;
  if (mode === 'ocr' && kind !== 'image') return `mode "ocr" needs an image (PNG, JPEG, GIF, TIFF, BMP or WebP); the URL answered ${contentType}`;
  return null;
}

export function createFetchWork(deps: FetchWorkDeps): AttemptWork<'fetch', FetchedPage & { document: DocumentKind }> {
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
        outcome = await fetchPage(
          {
            url: task.url,
            method: task.method,
            body,
            contentType: task.contentType,
            timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
            acceptMimes: acceptedDocumentMimes(task.mode, task.ocr),
            // Sent to the target's origin only: the fetcher drops it on a redirect to another one.
            ...(Object.keys(cookies).length > 0 ? { headers: { cookie: cookieHeader(cookies) } } : {}),
          },
          deps.fetchConfig,
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
        });
      }
      const report = { statusCode: outcome.statusCode, finalUrl: outcome.finalUrl, bytes: BigInt(outcome.bytes), fetchMs };
      const kind = documentKind(outcome.contentType, outcome.body);
      const refused = refusedByMode(task.mode, kind, outcome.contentType);
      if (refused) throw new AttemptFailure('UNSUPPORTED_CONTENT_TYPE', refused, report);
      return { input: { ...outcome, document: kind }, report };
    },

    async process(task, page, scope) {
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
          },
        },
        { deadlineMs: scope.deadlineMs },
      );
    },
  };
}
