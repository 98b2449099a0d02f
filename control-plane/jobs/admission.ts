import { randomUUID } from 'node:crypto';
import { ERROR_STATUS, TrawlError } from '../../common/errors.js';
import { toCredits } from '../../common/pricing.js';
import type { Caller } from '../accounts/caller.js';
import { jobReference } from '../billing/ledger.js';
import { SUBSCRIPTION_INACTIVE_MESSAGE, subscriptionInactive } from '../billing/subscription.js';
import { insertJobWithReservation, recordRejectionDetails, type AttemptRow, type Db, type JobForTask, type JobRequestFields } from './job-store.js';

export interface AdmittedJob {
  job: JobForTask;
  attempt: AttemptRow;
  balanceMicrocents: number;
}

export interface JobSpec extends JobRequestFields {
  id?: string;
  /** The first attempt's pool and price. */
  pool: string;
  attemptPriceMicrocents: number;
  inputKey?: string;
  /** Shown as estimated_tier when the balance cannot cover the reservation: the tier required_credits (the first step) pays for. */
  estimatedTier: string;
}

const REJECTION_MESSAGE = 'The balance cannot cover this request';

/** An extraction_prompt needs an LLM provider: without one configured it is refused before anything is admitted or fetched. */
export function refuseUnconfiguredPrompt(prompt: string | undefined, llmConfigured: boolean): void {
  if (prompt && !llmConfigured) throw new TrawlError('SERVICE_UNAVAILABLE', 'LLM extraction (extraction_prompt) is not configured on this service');
}

/**
 * Reserves and records a job with its first attempt in one statement. A
 * balance that cannot cover the reservation records the job as rejected (so
 * polling its id answers `rejected`) and throws INSUFFICIENT_CREDITS; so does
 * a subscription that is past due or cancelled, with SUBSCRIPTION_INACTIVE.
 */
export async function admitJob(
  db: Db,
  caller: Pick<Caller, 'accountId' | 'keyId'> & Partial<Pick<Caller, 'environment'>>,
  spec: JobSpec,
  requestId: string,
): Promise<AdmittedJob> {
  const jobId = spec.id ?? randomUUID();
  const attempt: AttemptRow = {
    id: randomUUID(),
    job_id: jobId,
    attempt_number: 1,
    tier: spec.tierPlan[0]!,
    pool: spec.pool,
    price_microcents: spec.attemptPriceMicrocents,
  };
  const { kind, url, mode, formats, sync, request, tierPlan, deadline, requestWebhook } = spec;
  // Test keys (sk_test_) run free of charge (docs/api.md, API keys): nothing reserved, so every attempt is charged 0.
  const reserveMicrocents = caller.environment === 'test' ? 0 : spec.reserveMicrocents;
  const steps = spec.reserveSteps ?? spec.tierPlan.map(() => spec.reserveMicrocents);
  const reserveSteps = caller.environment === 'test' ? steps.map(() => 0) : steps;
  const outcome = await insertJobWithReservation(db, {
    kind, url, mode, formats, sync, request, tierPlan, reserveMicrocents, reserveSteps, deadline, requestWebhook,
    id: jobId,
    accountId: caller.accountId,
    apiKeyId: caller.keyId,
    requestId,
    inputKey: spec.inputKey ?? null,
    ledgerReference: jobReference(jobId),
    firstAttempt: attempt,
    rejection: { code: 'INSUFFICIENT_CREDITS', message: REJECTION_MESSAGE, httpStatus: ERROR_STATUS.INSUFFICIENT_CREDITS },
    subscriptionRejection: { code: 'SUBSCRIPTION_INACTIVE', message: SUBSCRIPTION_INACTIVE_MESSAGE, httpStatus: ERROR_STATUS.SUBSCRIPTION_INACTIVE },
  });
  if (outcome.subscriptionInactive) throw subscriptionInactive({ job_id: jobId });
  if (!outcome.admitted) {
    // The least the job can run with: its first tier.
    const details = { required_credits: toCredits(steps[0]!), available_credits: toCredits(outcome.balanceMicrocents), estimated_tier: spec.estimatedTier };
    // Polling the rejected job shows them too; the answer goes out even if they could not be recorded.
    await recordRejectionDetails(db, jobId, details).catch(() => undefined);
    throw new TrawlError('INSUFFICIENT_CREDITS', REJECTION_MESSAGE, { ...details, job_id: jobId });
  }
  return {
    job: { id: jobId, account_id: caller.accountId, kind: spec.kind, request: spec.request, deadline_at: spec.deadline, input_key: spec.inputKey ?? null },
    attempt,
    balanceMicrocents: outcome.balanceMicrocents,
  };
}
