import type { FetchTask } from '../../proto/gen/trawl/v1/work_pb.js';
import { pipelineInput, type ContentPipeline } from '../pipeline/content-pipeline.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import type { AttemptWork } from '../runtime/attempt.js';
import type { DomainLease } from '../runtime/domain-lease.js';
import { decodeText } from './charset.js';
import type { FetchedPage, FetchOutcome } from './fetch-result.js';
import { isJavaScriptShell, SHELL_SCAN_BYTES } from './js-shell-detector.js';

/** One fetch as a tier makes it: the task, with the body read and the time left. */
export interface PageRequest {
  url: string;
  method: string;
  body: string | undefined;
  contentType: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** How a tier fetches a page: undici, impit or the browser. Never throws for a target's behaviour. */
export type PageFetcher = (req: PageRequest, task: FetchTask) => Promise<FetchOutcome>;

export interface FetchWorkDeps {
  /** Where large request bodies wait (the task carries their key instead). */
  readInput(key: string): Promise<string | null>;
  lease: DomainLease;
  fetch: PageFetcher;
  pipeline: ContentPipeline;
  workerId: string;
  /** Whether this tier's answers are checked for JavaScript-only shells (the HTTP tiers). */
  detectShells: boolean;
}

/** What a successful fetch is besides a page, for the control plane to act on (AttemptReport.classification). */
function classify(page: FetchedPage, detectShells: boolean): string {
  if (!detectShells || page.contentType !== 'text/html') return '';
  return isJavaScriptShell(decodeText(page.body.subarray(0, SHELL_SCAN_BYTES), page.charset)) ? 'js_shell' : '';
}

/** How often a held domain slot is extended while its fetch runs. */
const LEASE_REFRESH_MS = 5_000;

/**
 * What every fetch tier does: the page fetched (by the tier's own client)
 * while holding a slot of its domain, classified, then the content pipeline.
 */
export function createFetchWork(deps: FetchWorkDeps): AttemptWork<'fetch', FetchedPage> {
  return {
    payload: 'fetch',
    processFailureCode: 'EXTRACTION_FAILED',

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
      // Awaited below, after the lease; a failure before then must not count as unhandled.
      parked?.catch(() => undefined);
      const lease = await leasing;
      const release = () => void lease?.release().catch(() => undefined);
      let body = task.body;
      try {
        await scope.admitted;
        if (parked) {
          const stored = await parked;
          if (stored === null) throw new AttemptFailure('INTERNAL_ERROR', 'The request body is no longer available');
          body = stored;
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
        outcome = await deps.fetch(
          { url: task.url, method: task.method, body, contentType: task.contentType, timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)), signal: scope.signal },
          task,
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
      return {
        input: outcome,
        report: { statusCode: outcome.statusCode, finalUrl: outcome.finalUrl, bytes: BigInt(outcome.bytes), fetchMs, classification: classify(outcome, deps.detectShells) },
      };
    },

    process(task, page, scope) {
      return deps.pipeline.process(
        {
          bytes: page.body,
          charset: page.charset,
          input: { ...pipelineInput(task.pipeline), contentType: page.contentType, url: page.finalUrl, endpoint: 'scrape' },
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
    },
  };
}
