import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import type { ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { AuthenticatedKey } from '../accounts/api-keys.js';
import { applyLedgerEntry, withTransaction } from '../billing/ledger.js';
import { MICROCENTS_PER_CREDIT, TIER_POOLS, TIER_PRICES } from '../billing/prices.js';
import { planTiers } from '../scheduler/tier-plan.js';
import { requestToJson, type AttemptRow, type JobForTask } from '../scheduler/dispatcher.js';

/** An async job may run for this long before the sweeper fails it (SPEC 8.4). */
/** SPEC 8.4: an async job runs for 300 s by default and never more than 600 s. */
export const JOB_DEADLINE_DEFAULT_MS = 300_000;
export const JOB_DEADLINE_MAX_MS = 600_000;

/** The job's deadline: 300 s, or the fetch timeout plus a minute of queueing and processing, at most 600 s. */
export function jobDeadlineMs(timeoutSeconds: number): number {
  return Math.min(JOB_DEADLINE_MAX_MS, Math.max(JOB_DEADLINE_DEFAULT_MS, (timeoutSeconds || 90) * 1000 + 60_000));
}

export interface AdmittedJob {
  job: JobForTask;
  attempt: AttemptRow;
  balanceMicrocents: number;
}

export function jobReference(jobId: string): string {
  return `job:${jobId}`;
}

export interface JobSpec {
  id?: string;
  kind: 'scrape' | 'extract';
  url: string;
  mode: string;
  formats: string[];
  sync: boolean;
  request: JsonObject;
  tierPlan: string[];
  pool: string;
  reserveMicrocents: number;
  attemptPriceMicrocents: number;
  deadline: Date;
  inputKey?: string;
  /** Shown as estimated_tier when the balance cannot cover the reservation. */
  estimatedTier: string;
}

/**
 * Reserves and records a job with its first attempt in one transaction. A
 * balance that cannot cover the reservation records the job as rejected
 * (so polling its id answers `rejected`) and throws INSUFFICIENT_CREDITS.
 */
export async function admitJob(pool: pg.Pool, auth: AuthenticatedKey, spec: JobSpec, requestId: string): Promise<AdmittedJob> {
  const jobId = spec.id ?? randomUUID();
  const attempt: AttemptRow = {
    id: randomUUID(),
    job_id: jobId,
    attempt_number: 1,
    tier: spec.tierPlan[0]!,
    pool: spec.pool,
    price_microcents: spec.attemptPriceMicrocents,
  };
  const outcome = await withTransaction(pool, async (client) => {
    const reserved = await applyLedgerEntry(client, {
      accountId: auth.accountId,
      kind: 'reserve',
      amountMicrocents: -spec.reserveMicrocents,
      reference: jobReference(jobId),
    });
    const ok = reserved.applied;
    // The job and its first attempt in one statement (the attempt only when the reservation went through).
    await client.query(
      `WITH job AS (
         INSERT INTO jobs (id, account_id, api_key_id, kind, status, url, mode, formats, sync, request, tier_plan, current_tier,
                           attempts, reserved_microcents, request_id, deadline_at, input_key, completed_at,
                           error_code, error_message, error_http_status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
         RETURNING id
       )
       INSERT INTO job_attempts (id, job_id, attempt_number, tier, pool, status, price_microcents)
       SELECT $22, job.id, 1, $12, $23, 'queued', $24 FROM job WHERE $25::boolean`,
      [
        jobId, auth.accountId, auth.keyId, spec.kind, ok ? 'pending' : 'rejected', spec.url, spec.mode, spec.formats, spec.sync,
        spec.request, spec.tierPlan, attempt.tier, ok ? 1 : 0, ok ? spec.reserveMicrocents : 0, requestId, spec.deadline,
        spec.inputKey ?? null, ok ? null : new Date(), ok ? null : 'INSUFFICIENT_CREDITS',
        ok ? null : 'The balance cannot cover this request', ok ? null : 402,
        attempt.id, attempt.pool, attempt.price_microcents, ok,
      ],
    );
    return reserved;
  });

  if (!outcome.applied) {
    throw new TrawlError('INSUFFICIENT_CREDITS', 'The balance cannot cover this request', {
      required_credits: spec.reserveMicrocents / MICROCENTS_PER_CREDIT,
      available_credits: outcome.balanceMicrocents / MICROCENTS_PER_CREDIT,
      estimated_tier: spec.estimatedTier,
      job_id: jobId,
    });
  }
  return {
    job: { id: jobId, account_id: auth.accountId, kind: spec.kind, request: spec.request, deadline_at: spec.deadline, input_key: spec.inputKey ?? null },
    attempt,
    balanceMicrocents: outcome.balanceMicrocents,
  };
}

/** What tier planning reads from a scrape request. */
export function tierPlanInput(request: ScrapeRequest) {
  return { mode: request.mode, renderJs: request.advanced?.['render_js'] === true, costControls: request.costControls ?? {} };
}

/** Prices a scrape from its tier plan (the most expensive planned tier is reserved) and admits it. */
export async function admitScrape(
  deps: { pool: pg.Pool; availableTiers: readonly string[] },
  auth: AuthenticatedKey,
  request: ScrapeRequest,
  requestId: string,
  options: { id?: string; inputKey?: string } = {},
): Promise<AdmittedJob> {
  const plan = planTiers({ ...tierPlanInput(request), availableTiers: deps.availableTiers });
  const first = plan.tiers[0]!;
  return admitJob(
    deps.pool,
    auth,
    {
      kind: 'scrape',
      url: request.url,
      mode: request.mode,
      formats: request.formats,
      sync: request.sync,
      request: requestToJson(request),
      tierPlan: plan.tiers,
      pool: TIER_POOLS[first]!,
      reserveMicrocents: plan.maxCostMicrocents,
      attemptPriceMicrocents: TIER_PRICES[first]!,
      deadline: new Date(Date.now() + jobDeadlineMs(request.timeout)),
      ...(options.id ? { id: options.id } : {}),
      ...(options.inputKey ? { inputKey: options.inputKey } : {}),
      estimatedTier: plan.tiers[plan.tiers.length - 1]!,
    },
    requestId,
  );
}
