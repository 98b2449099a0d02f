import type pg from 'pg';
import { ERROR_STATUS, isErrorCode } from '../../common/errors.js';
import { applyLedgerEntry } from '../billing/ledger.js';
import { jobReference } from '../scrape/admission.js';

export interface LockedJob {
  id: string;
  account_id: string;
  status: string;
  reserved_microcents: string;
  tier_plan: string[];
  attempts: number;
  request: Record<string, unknown>;
  deadline_at: Date;
  kind: string;
  input_key: string | null;
}

export async function lockJob(client: pg.PoolClient, jobId: string): Promise<LockedJob | undefined> {
  const row = await client.query<LockedJob>(
    `SELECT id, account_id, status, reserved_microcents, tier_plan, attempts, request, deadline_at, kind, input_key
     FROM jobs WHERE id = $1 FOR UPDATE`,
    [jobId],
  );
  return row.rows[0];
}

/** Worker classifications that become a different public code on the job. */
const JOB_ERROR_CODES: Record<string, string> = { BLOCKED: 'BLOCKED_BY_ANTIBOT' };

export function publicJobError(code: string): { code: string; httpStatus: number } {
  const mapped = JOB_ERROR_CODES[code] ?? code;
  return isErrorCode(mapped) ? { code: mapped, httpStatus: ERROR_STATUS[mapped] } : { code: 'SCRAPE_FAILED', httpStatus: 422 };
}

/** Settles a successful job: the unused part of the reservation goes back. */
export async function settleJob(
  client: pg.PoolClient,
  job: LockedJob,
  input: { chargedMicrocents: number; resultKey: string; statusCode: number },
): Promise<void> {
  const reserved = Number(job.reserved_microcents);
  const charged = Math.min(input.chargedMicrocents, reserved);
  await applyLedgerEntry(client, {
    accountId: job.account_id,
    kind: 'settle',
    amountMicrocents: reserved - charged,
    reference: jobReference(job.id),
  });
  await client.query(
    `UPDATE jobs SET status = 'succeeded', charged_microcents = $2, result_key = $3, status_code = $4,
            completed_at = now(), updated_at = now(), started_at = coalesce(started_at, now())
     WHERE id = $1`,
    [job.id, charged, input.resultKey, input.statusCode],
  );
}

/** Fails a job and refunds its whole reservation (every job failure is refunded, SPEC 7.5). */
export async function failJob(
  client: pg.PoolClient,
  job: LockedJob,
  input: { code: string; message: string; statusCode?: number; details?: Record<string, unknown> },
): Promise<void> {
  const reserved = Number(job.reserved_microcents);
  await applyLedgerEntry(client, {
    accountId: job.account_id,
    kind: 'refund',
    amountMicrocents: reserved,
    reference: jobReference(job.id),
  });
  const publicError = publicJobError(input.code);
  await client.query(
    `UPDATE jobs SET status = 'failed', refunded_microcents = $2, error_code = $3, error_message = $4,
            error_http_status = $5, error_details = $6, status_code = $7, completed_at = now(), updated_at = now()
     WHERE id = $1`,
    [job.id, reserved, publicError.code, input.message, publicError.httpStatus, input.details ?? null, input.statusCode ?? null],
  );
}
