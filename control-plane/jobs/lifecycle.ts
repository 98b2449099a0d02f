import { randomUUID } from 'node:crypto';
import { ERROR_STATUS, isErrorCode } from '../../common/errors.js';
import { tierPrice } from '../../common/pricing.js';
import { requestAddOnsPrice } from './request-add-ons.js';
import { TIER_POOLS, type Tier } from '../../common/tiers.js';
import { jobReference } from '../billing/ledger.js';
import type { JobSignals } from './job-signals.js';
import {
  closeJob,
  escalateAttempt,
  markAttemptsStarted,
  type AttemptOutcome,
  type AttemptRow,
  type Db,
  type JobForTask,
  type JobRecord,
  type StartedAttempt,
} from './job-store.js';
import { createWriteBatcher, type WriteBatcher } from './write-batcher.js';

/**
 * The state changes of a job after admission: start, settle, fail with a
 * full refund, escalate to the next tier, expire. Each is one guarded
 * statement, so applying it twice changes nothing the second time.
 */

/** Worker classifications that become a different public code on the job. */
const JOB_ERROR_CODES: Record<string, string> = { BLOCKED: 'BLOCKED_BY_ANTIBOT' };

export function publicJobError(code: string): { code: string; httpStatus: number } {
  const mapped = JOB_ERROR_CODES[code] ?? code;
  return isErrorCode(mapped) ? { code: mapped, httpStatus: ERROR_STATUS[mapped] } : { code: 'SCRAPE_FAILED', httpStatus: ERROR_STATUS.SCRAPE_FAILED };
}

export interface JobFailure {
  code: string;
  message: string;
  statusCode?: number;
  details?: Record<string, unknown>;
}

/** Started reports arriving together are written in one statement. */
export function createStartRecorder(db: Db): WriteBatcher<StartedAttempt> {
  return createWriteBatcher((items) => markAttemptsStarted(db, items), { maxBatch: 200 });
}

/** Ends the job with its attempt's success: the attempt's price is charged, the rest of the reservation returned. */
export function settleJob(db: Db, jobId: string, attempt: AttemptOutcome, result: { resultKey: string; statusCode: number }): Promise<JobRecord | null> {
  return closeJob(db, {
    jobId,
    ledgerReference: jobReference(jobId),
    attempt,
    resultKey: result.resultKey,
    statusCode: result.statusCode || null,
    error: null,
  });
}

/**
 * Fails a job still open and refunds its whole reservation (every job failure
 * is refunded, SPEC 7.5). Like settleJob, answers the job as it now is, or
 * null when it had already ended.
 */
export function failJob(db: Db, jobId: string, attempt: AttemptOutcome | null, failure: JobFailure): Promise<JobRecord | null> {
  const error = publicJobError(failure.code);
  return closeJob(db, {
    jobId,
    ledgerReference: jobReference(jobId),
    attempt,
    resultKey: null,
    statusCode: failure.statusCode ?? null,
    error: { code: error.code, message: failure.message, httpStatus: error.httpStatus, details: failure.details ?? null },
  });
}

/** Fails the job if it is still open, refunding it, and announces its end to whoever waits. */
export async function failOpenJob(deps: { pool: Db; signals: Pick<JobSignals, 'announce'> }, jobId: string, failure: JobFailure): Promise<boolean> {
  const record = await failJob(deps.pool, jobId, null, failure);
  if (record) deps.signals.announce(jobId, { kind: 'ended', record });
  return record !== null;
}

/** Fails the attempt and queues one on `tier`; answers the attempt to dispatch, or null when nothing changed. */
export async function escalateJob(db: Db, job: JobForTask, failed: AttemptOutcome, tier: Tier): Promise<AttemptRow | null> {
  // Every attempt is priced with the request's add-ons, as admission reserved them.
  const next = { id: randomUUID(), tier, pool: TIER_POOLS[tier], priceMicrocents: tierPrice(tier) + requestAddOnsPrice(job.request) };
  const attemptNumber = await escalateAttempt(db, job.id, failed, next);
  if (attemptNumber === null) return null;
  return { id: next.id, job_id: job.id, attempt_number: attemptNumber, tier, pool: next.pool, price_microcents: next.priceMicrocents };
}
