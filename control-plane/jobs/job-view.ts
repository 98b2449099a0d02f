import { create, fromBinary, toBinary, type UnknownField } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Redis } from 'ioredis';
import { TrawlError } from '../../common/errors.js';
import { ADD_ON_PRICES, tierPrice, toCredits } from '../../common/pricing.js';
import { requestAddOns, requestAddOnsPrice } from './request-add-ons.js';
import { BROWSER_TIER, CAPTCHA_TIER } from '../../common/tiers.js';
import { BillingSchema, EscalationSchema } from '../../proto/gen/trawl/v1/billing_pb.js';
import { JobErrorSchema, JobSchema, ScrapeResultSchema, type Job, type ScrapeResult } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { EndedJob } from './job-signals.js';
import { loadJobRecord, type Db, type JobRecord } from './job-store.js';
import { isUuid } from '../../common/ids.js';
import { isEndedJob } from '../../common/job-status.js';

export interface JobLoaderDeps {
  pool: Db;
  redis: Redis;
  /** How long results are kept, quoted when one is gone. */
  resultTtlSeconds: number;
  /** Ended jobs whose records are kept in memory. */
  cachedJobs?: number;
}

/** A job record with its stored result (a serialized ScrapeResult) and the account's balance. */
export interface LoadedJob {
  record: JobRecord;
  storedResult: Uint8Array | undefined;
  balanceMicrocents: bigint;
}

export function resultOf(job: LoadedJob): ScrapeResult | undefined {
  return job.storedResult ? fromBinary(ScrapeResultSchema, job.storedResult) : undefined;
}

export interface JobLoader {
  /**
   * The job with its attempts and, when it succeeded, its result. Another
   * account's job is not found, like a missing one. `ended` is the job as it
   * ended, when the caller has it.
   */
  load(jobId: string, accountId: string, ended?: EndedJob): Promise<LoadedJob | undefined>;
}

/**
 * Loads jobs in one query, or none: the record of an ended job never
 * changes, so the latest ones are kept in memory. The result is read from
 * Redis every time; a succeeded job whose result has expired (or was lost
 * with Redis) answers RESULT_UNAVAILABLE, never a success without a result.
 */
export function createJobLoader(deps: JobLoaderDeps): JobLoader {
  const limit = deps.cachedJobs ?? 10_000;
  const endedJobs = new Map<string, JobRecord>();
  const remember = (record: JobRecord) => {
    if (!isEndedJob(record.status) || endedJobs.has(record.id)) return;
    if (endedJobs.size >= limit) endedJobs.delete(endedJobs.keys().next().value!);
    endedJobs.set(record.id, record);
  };
  const findRecord = async (jobId: string, accountId: string, ended?: JobRecord) => {
    const known = ended?.id === jobId ? ended : endedJobs.get(jobId);
    if (known) return known.account_id === accountId ? known : undefined;
    return loadJobRecord(deps.pool, jobId, accountId);
  };
  return {
    async load(jobId, accountId, ended) {
      if (!isUuid(jobId)) return undefined;
      const record = await findRecord(jobId, accountId, ended?.record);
      if (!record) return undefined;
      remember(record);
      let storedResult: Uint8Array | undefined;
      if (record.status === 'succeeded' && record.result_key) {
        const stored = await (record === ended?.record && ended.storedResult ? ended.storedResult : deps.redis.getBuffer(record.result_key));
        if (!stored) {
          throw new TrawlError('RESULT_UNAVAILABLE', 'The result of this job is no longer kept; run the request again', {
            job_id: record.id,
            completed_at: record.completed_at?.toISOString() ?? null,
            kept_hours: deps.resultTtlSeconds / 3600,
          });
        }
        storedResult = stored;
      }
      return { record, storedResult, balanceMicrocents: BigInt(record.balance_microcents) };
    },
  };
}

/**
 * The result as stored, as the wire form of Job.result: an answer in
 * binary carries the bytes without decoding and encoding them again.
 */
function storedResultField(stored: Uint8Array): UnknownField {
  return { no: JobSchema.field.result!.number, wireType: WireType.LengthDelimited, data: new BinaryWriter().bytes(stored).finish() };
}

/**
 * The job record returned by polling and by Submit. With `binary` (the
 * answer is serialized as protobuf) the result travels as stored.
 */
export function jobView(loaded: LoadedJob, opts: { binary: boolean }): Job {
  const row = loaded.record;
  const charged = Number(row.charged_microcents);
  const finished = row.attempt_list.filter((a) => a.status === 'succeeded' || a.status === 'failed');
  const escalated = row.status === 'succeeded' && finished.length > 1;
  const billing = create(BillingSchema, {
    totalCredits: toCredits(charged),
    tierUsed: row.current_tier ?? '',
    escalations: finished.map((a) =>
      create(EscalationSchema, {
        tier: a.tier,
        result: a.result ?? a.status,
        credits: toCredits(a.credits_microcents),
        durationMs: BigInt(a.duration_ms ?? 0),
      }),
    ),
    // What a browser-only scraper would have charged for the same request (its add-ons too), less what this job cost.
    savings: row.status === 'succeeded' ? toCredits(Math.max(0, tierPrice(BROWSER_TIER) + requestAddOnsPrice(row.request) - charged)) : 0,
    // Tier 5 cannot be forced (escalation reaches it from the attempt that met the captcha): nothing to suggest.
    optimizationSuggestion:
      escalated && row.current_tier !== CAPTCHA_TIER
        ? `This site needed tier ${row.current_tier}; send cost_controls.force_tier "${row.current_tier}" to skip the attempts that failed.`
        : undefined,
    refunded: row.status === 'failed',
    reason: row.status === 'failed' ? (row.error_code ?? undefined) : undefined,
    reservedMicrocents: BigInt(row.reserved_microcents),
    chargedMicrocents: BigInt(charged),
    refundedMicrocents: BigInt(row.refunded_microcents),
    // The add-ons went with the successful attempt; a failed job charged none (a test key charges nothing).
    addOns: row.status === 'succeeded' && charged > 0 ? Object.fromEntries(requestAddOns(row.request).map((name) => [name, toCredits(ADD_ON_PRICES[name])])) : {},
  });
  const passThrough = opts.binary && loaded.storedResult !== undefined;
  const job = create(JobSchema, {
    jobId: row.id,
    status: row.status,
    url: row.url,
    mode: row.mode,
    formats: row.formats,
    sync: row.sync,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString(),
    completedAt: row.completed_at?.toISOString(),
    tier: row.current_tier ?? '',
    attempts: row.attempts,
    result: passThrough ? undefined : resultOf(loaded),
    error: row.error_code
      ? create(JobErrorSchema, {
          code: row.error_code,
          message: row.error_message ?? '',
          httpStatus: row.error_http_status ?? 422,
          details: (row.error_details ?? {}) as never,
        })
      : undefined,
    billing,
  });
  if (passThrough) job.$unknown = [storedResultField(loaded.storedResult!)];
  return job;
}

/** The wire form of an ended job's record as Job, without its result: the record never changes, nor does its form. */
const endedViews = new WeakMap<JobRecord, Uint8Array>();

/**
 * The job as a message field in wire form (field `no` of the answer), for
 * an answer in binary: an ended job's record is encoded once and kept beside
 * it (a job polled again and again is encoded once), its result appended as
 * stored. Fields may stand in any order on the wire; a decoder reads the
 * same Job as jobView's.
 */
export function jobViewField(loaded: LoadedJob, no: number): UnknownField {
  const record = loaded.record;
  const ended = isEndedJob(record.status);
  let view = ended ? endedViews.get(record) : undefined;
  if (!view) {
    view = toBinary(JobSchema, jobView({ ...loaded, storedResult: undefined }, { binary: true }));
    if (ended) endedViews.set(record, view);
  }
  const writer = new BinaryWriter();
  if (loaded.storedResult) {
    const field = storedResultField(loaded.storedResult);
    const result = new BinaryWriter().tag(field.no, field.wireType).raw(field.data).finish();
    writer.uint32(view.length + result.length).raw(view).raw(result);
  } else {
    writer.bytes(view);
  }
  return { no, wireType: WireType.LengthDelimited, data: writer.finish() };
}
