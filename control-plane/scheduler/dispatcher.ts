import { create, toBinary, toJson, fromJson, type JsonObject } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type pg from 'pg';
import type { NatsNames } from '../../common/nats-names.js';
import { ScrapeTaskSchema, type ScrapeTask } from '../../proto/gen/trawl/v1/work_pb.js';
import { ScrapeRequestSchema, type ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { ExtractRequestSchema, type ExtractRequest } from '../../proto/gen/trawl/v1/extract_pb.js';

export interface AttemptRow {
  id: string;
  job_id: string;
  attempt_number: number;
  tier: string;
  pool: string;
  price_microcents: number | string;
}

export interface JobForTask {
  id: string;
  account_id: string;
  kind: string;
  request: JsonObject;
  deadline_at: Date;
  input_key: string | null;
}

/** Extract jobs run for at most the sync deadline; their content waits in Redis. */
export const EXTRACT_TIMEOUT_MS = 85_000;

export function requestToJson(request: ScrapeRequest): JsonObject {
  return toJson(ScrapeRequestSchema, request) as JsonObject;
}

export function extractRequestToJson(request: ExtractRequest): JsonObject {
  // The content itself is never stored in Postgres.
  return toJson(ExtractRequestSchema, { ...request, content: '' }) as JsonObject;
}

function scrapeTask(job: JobForTask, attempt: AttemptRow): ScrapeTask {
  const req = fromJson(ScrapeRequestSchema, job.request, { ignoreUnknownFields: true });
  const advanced = req.advanced ?? {};
  return create(ScrapeTaskSchema, {
    kind: 'scrape',
    url: req.url,
    method: req.method || 'GET',
    // A parked body (see INLINE_BODY_LIMIT_BYTES) is read by the worker from Redis.
    body: job.input_key ? '' : req.body,
    inputKey: job.input_key ?? '',
    contentType: req.contentType || 'application/json',
    timeoutMs: (req.timeout || 90) * 1000,
    formats: req.formats,
    includeRawHtml: req.includeRawHtml,
    extractionSchema: req.extractionSchema,
    extractionProfile: req.extractionProfile,
    extractionPrompt: req.extractionPrompt,
    onlyMainContent: advanced['only_main_content'] !== false,
    ragChunkSize: req.ragOptions?.chunkSize,
    ragOverlap: req.ragOptions?.overlap,
    ...identity(job, attempt),
  });
}

function extractTask(job: JobForTask, attempt: AttemptRow): ScrapeTask {
  const req = fromJson(ExtractRequestSchema, job.request, { ignoreUnknownFields: true });
  return create(ScrapeTaskSchema, {
    kind: 'extract',
    url: req.sourceUrl ?? '',
    method: 'GET',
    contentType: 'application/json',
    timeoutMs: EXTRACT_TIMEOUT_MS,
    formats: req.formats,
    extractionSchema: req.extractionSchema,
    extractionProfile: req.extractionProfile,
    extractionPrompt: req.extractionPrompt,
    onlyMainContent: true,
    inputKey: job.input_key ?? '',
    inputContentType: req.contentType,
    evidence: req.evidence,
    ragChunkSize: req.ragOptions?.chunkSize,
    ragOverlap: req.ragOptions?.overlap,
    ...identity(job, attempt),
  });
}

function identity(job: JobForTask, attempt: AttemptRow) {
  return {
    jobId: job.id,
    attemptId: attempt.id,
    attemptNumber: attempt.attempt_number,
    tier: attempt.tier,
    pool: attempt.pool,
    deadlineUnixMs: BigInt(job.deadline_at.getTime()),
    accountId: job.account_id,
  };
}

export function buildTask(job: JobForTask, attempt: AttemptRow): ScrapeTask {
  return job.kind === 'extract' ? extractTask(job, attempt) : scrapeTask(job, attempt);
}

/**
 * Publishes an attempt's task and marks it published (the outbox flag). The
 * attempt id is the message id, so a second publish of the same attempt
 * inside the duplicate window is dropped by JetStream.
 */
export async function publishAttempt(
  deps: { js: JetStreamClient; names: NatsNames; pool: pg.Pool },
  job: JobForTask,
  attempt: AttemptRow,
): Promise<void> {
  const task = buildTask(job, attempt);
  await deps.js.publish(deps.names.workSubject(attempt.pool), toBinary(ScrapeTaskSchema, task), { msgID: attempt.id });
  await deps.pool.query('UPDATE job_attempts SET published = true WHERE id = $1', [attempt.id]);
}
