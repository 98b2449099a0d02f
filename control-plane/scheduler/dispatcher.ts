import { create, fromJson, toBinary, toJson, type JsonObject } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DEFAULT_FETCH_TIMEOUT_S } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { ExtractRequestSchema, type ExtractRequest } from '../../proto/gen/trawl/v1/extract_pb.js';
import { MapRequestSchema } from '../../proto/gen/trawl/v1/map_pb.js';
import { ScrapeRequestSchema, type ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';
import {
  AttemptRefSchema,
  BrowserOptionsSchema,
  ExtractTaskSchema,
  FetchTaskSchema,
  MapTaskSchema,
  PipelineOptionsSchema,
  TaskSchema,
  type PipelineOptions,
  type Task,
} from '../../proto/gen/trawl/v1/work_pb.js';
import { locationCountry } from '../scrape/proxy-options.js';
import { cacheTtlSeconds } from '../scrape/result-cache.js';
import { markAttemptsPublished, type AttemptRow, type Db, type JobForTask } from '../jobs/job-store.js';
import { createWriteBatcher } from '../jobs/write-batcher.js';

export function requestToJson(request: ScrapeRequest): JsonObject {
  return toJson(ScrapeRequestSchema, request) as JsonObject;
}

export function extractRequestToJson(request: ExtractRequest): JsonObject {
  // The content itself is never stored in Postgres.
  return toJson(ExtractRequestSchema, { ...request, content: '' }) as JsonObject;
}

/** What the pipeline makes of the document, from the fields scrape and extract requests share. */
function pipelineOptions(
  req: Pick<ScrapeRequest, 'formats' | 'extractionSchema' | 'extractionProfile' | 'extractionPrompt' | 'ragOptions'>,
  options: { onlyMainContent: boolean; evidence?: boolean; removeCookieBanners?: boolean },
): PipelineOptions {
  return create(PipelineOptionsSchema, {
    formats: req.formats,
    extractionSchema: req.extractionSchema,
    extractionProfile: req.extractionProfile,
    extractionPrompt: req.extractionPrompt,
    ragChunkSize: req.ragOptions?.chunkSize,
    ragOverlap: req.ragOptions?.overlap,
    ...options,
  });
}

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** How the browser tiers load the page, from the request's top-level fields and its advanced options. */
function browserOptions(req: ScrapeRequest) {
  const advanced = req.advanced ?? {};
  const flag = (name: string) => (typeof advanced[name] === 'boolean' ? (advanced[name] as boolean) : undefined);
  const condition = advanced['wait_condition'];
  return create(BrowserOptionsSchema, {
    waitFor: req.waitFor ?? '',
    waitForTimeoutMs: (req.waitForTimeout ?? 0) * 1000,
    waitUntil: req.waitUntil ?? (typeof condition === 'string' ? condition : ''),
    scroll: req.enableScroll ?? flag('scroll_to_load'),
    removeCookieBanners: flag('remove_cookie_banners') !== false,
    screenshot: flag('screenshot') === true,
    generatePdf: flag('generate_pdf') === true,
  });
}

function fetchPayload(job: JobForTask): Task['payload'] {
  const req = fromJson(ScrapeRequestSchema, job.request, { ignoreUnknownFields: true });
  const advanced = req.advanced ?? {};
  return {
    case: 'fetch',
    value: create(FetchTaskSchema, {
      url: req.url,
      method: req.method || 'GET',
      // A parked body (see INLINE_BODY_LIMIT_BYTES) is read by the worker from Redis.
      body: job.input_key ? '' : req.body,
      inputKey: job.input_key ?? '',
      contentType: req.contentType || 'application/json',
      timeoutMs: (req.timeout || DEFAULT_FETCH_TIMEOUT_S) * 1000,
      includeRawHtml: req.includeRawHtml,
      mode: req.mode,
      ocrLanguage: typeof advanced['ocr_language'] === 'string' ? advanced['ocr_language'] : '',
      ocr: advanced['ocr'] === true,
      cookies: isStringMap(advanced['cookies']) ? advanced['cookies'] : {},
      sessionCookies: typeof advanced['session_id'] === 'string',
      premiumProxy: advanced['use_proxy'] === true,
      ownProxy: advanced['use_own_proxy'] === true,
      locationCountry: locationCountry(req) ?? '',
      locationCity: typeof req.location?.['city'] === 'string' ? req.location['city'] : '',
      headers: req.headers,
      keepRedirects: req.followRedirects === false,
      // force_refresh skips reading the cache, not filling it.
      ...(req.cache && req.cacheIdentity ? { cacheIdentity: req.cacheIdentity, cacheTtlS: cacheTtlSeconds(req) } : {}),
      pipeline: pipelineOptions(req, { onlyMainContent: advanced['only_main_content'] !== false, removeCookieBanners: advanced['remove_cookie_banners'] !== false }),
      browser: browserOptions(req),
    }),
  };
}

function extractPayload(job: JobForTask): Task['payload'] {
  const req = fromJson(ExtractRequestSchema, job.request, { ignoreUnknownFields: true });
  return {
    case: 'extract',
    value: create(ExtractTaskSchema, {
      sourceUrl: req.sourceUrl ?? '',
      inputKey: job.input_key ?? '',
      contentType: req.contentType,
      pipeline: pipelineOptions(req, { onlyMainContent: true, evidence: req.evidence }),
    }),
  };
}

function mapPayload(job: JobForTask): Task['payload'] {
  return { case: 'map', value: create(MapTaskSchema, { request: fromJson(MapRequestSchema, job.request, { ignoreUnknownFields: true }) }) };
}

const PAYLOADS: Readonly<Record<string, (job: JobForTask) => Task['payload']>> = { scrape: fetchPayload, extract: extractPayload, map: mapPayload };

/** The task envelope of one attempt: which attempt it is, and the payload its pool runs. */
export function buildTask(job: JobForTask, attempt: AttemptRow): Task {
  return create(TaskSchema, {
    attempt: create(AttemptRefSchema, {
      jobId: job.id,
      attemptId: attempt.id,
      attemptNumber: attempt.attempt_number,
      tier: attempt.tier,
      pool: attempt.pool,
      deadlineUnixMs: BigInt(job.deadline_at.getTime()),
      accountId: job.account_id,
    }),
    payload: (PAYLOADS[job.kind] ?? fetchPayload)(job),
  });
}

export interface Dispatcher {
  /** Publishes an attempt's task; resolves once JetStream has it. */
  publish(job: JobForTask, attempt: AttemptRow): Promise<void>;
  /** Waits for the outbox flags still being written. */
  stop(): Promise<void>;
}

/**
 * How long outbox flags gather before they are written together. The sweeper
 * only republishes attempts still queued (a started attempt needs no flag)
 * and unflagged for longer than its own threshold, which is longer than this.
 */
const PUBLISHED_FLAG_DELAY_MS = 1_000;

/**
 * Publishes tasks on the pool's WORK subject with the attempt id as message
 * id, so a second publish of the same attempt inside the duplicate window is
 * dropped by JetStream. Tasks published in the same turn of the event loop
 * leave in one write to NATS. The outbox flag (`published`) is then set for
 * many attempts in one statement; an attempt whose flag is never written is
 * published again by the sweeper, and the duplicate dropped.
 */
export function createDispatcher(deps: { js: JetStreamClient; names: NatsNames; pool: Db; log: Logger }): Dispatcher {
  const sendTogether = createWriteBatcher<() => void>(async (sends) => sends.forEach((send) => send()), { maxBatch: 256 });
  const published = createWriteBatcher<string>((ids) => markAttemptsPublished(deps.pool, ids), { maxBatch: 500, delayMs: PUBLISHED_FLAG_DELAY_MS });
  return {
    async publish(job, attempt) {
      const data = toBinary(TaskSchema, buildTask(job, attempt));
      let stored: Promise<unknown> = Promise.resolve();
      await sendTogether.add(() => {
        stored = deps.js.publish(deps.names.workSubject(attempt.pool), data, { msgID: attempt.id });
      });
      await stored;
      published.add(attempt.id).catch((err: unknown) => {
        deps.log.warn({ err, attemptId: attempt.id }, 'marking a task published failed; the sweeper publishes it again');
      });
    },
    stop: () => published.drain(),
  };
}
