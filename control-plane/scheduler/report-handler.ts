import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import { AttemptPhase, type AttemptReport } from '../../proto/gen/trawl/v1/work_pb.js';
import { withTransaction } from '../billing/ledger.js';
import { TIER_POOLS, TIER_PRICES } from '../billing/prices.js';
import type { AttemptRow, JobForTask } from './dispatcher.js';
import { failJob, lockJob, settleJob } from './job-settlement.js';
import { nextTier } from './tier-plan.js';
import type { JobSignal } from './job-waiters.js';

export interface ReportEffects {
  /** Attempts to publish after the transaction commits. */
  dispatch: Array<{ job: JobForTask; attempt: AttemptRow }>;
  /** Signals to announce on the job's done subject after commit. */
  signals: Array<{ jobId: string; signal: JobSignal }>;
}

/**
 * Applies one attempt report. Idempotent: a report for an attempt that has
 * already finished, or for a job that has already ended, changes nothing, so
 * a redelivered report never settles, refunds or escalates twice.
 */
export async function applyAttemptReport(deps: { pool: pg.Pool; log: Logger }, report: AttemptReport): Promise<ReportEffects> {
  const effects: ReportEffects = { dispatch: [], signals: [] };
  if (report.phase === AttemptPhase.STARTED) {
    // One statement (so one round trip and its own transaction) for both rows.
    await deps.pool.query(
      `WITH attempt AS (
         UPDATE job_attempts SET status = 'running', started_at = coalesce(started_at, now()), worker_id = $2,
                deliveries = GREATEST(deliveries, $3)
         WHERE id = $1 AND status IN ('queued', 'running')
       )
       UPDATE jobs SET status = 'running', started_at = coalesce(started_at, now()), updated_at = now()
       WHERE id = $4 AND status = 'pending'`,
      [report.attemptId, report.workerId, report.deliveryCount, report.jobId],
    );
    return effects;
  }

  await withTransaction(deps.pool, async (client) => {
    const job = await lockJob(client, report.jobId);
    if (!job || (job.status !== 'pending' && job.status !== 'running')) return;
    // Finishes the attempt unless it already finished (a redelivered report), in one round trip.
    const durationMs = Number(report.fetchMs + report.processMs);
    const finished = await client.query<{ tier: string; attempt_number: number; price_microcents: string }>(
      `UPDATE job_attempts SET status = $2, result = $3, error_code = $4, error_message = $5, escalate = $6,
              status_code = $7, credits_microcents = CASE WHEN $2 = 'succeeded' THEN price_microcents ELSE 0 END,
              fetch_ms = $8, duration_ms = $9, bytes = $10, worker_id = $11, finished_at = now(),
              started_at = coalesce(started_at, now())
       WHERE id = $1 AND job_id = $12 AND status NOT IN ('succeeded', 'failed')
       RETURNING tier, attempt_number, price_microcents`,
      [
        report.attemptId, report.ok ? 'succeeded' : 'failed', report.ok ? 'success' : report.errorCode.toLowerCase(),
        report.ok ? null : report.errorCode, report.ok ? null : report.errorMessage, report.escalate,
        report.statusCode || null, Number(report.fetchMs), durationMs, Number(report.bytes), report.workerId, job.id,
      ],
    );
    const attempt = finished.rows[0];
    if (!attempt) return;
    const price = Number(attempt.price_microcents);

    if (report.ok) {
      await settleJob(client, job, { chargedMicrocents: price, resultKey: report.resultKey, statusCode: report.statusCode });
      effects.signals.push({ jobId: job.id, signal: { kind: 'ended' } });
      return;
    }

    const next = report.escalate ? nextTier(job.tier_plan, attempt.tier) : undefined;
    if (next !== undefined) {
      const nextAttempt: AttemptRow = {
        id: randomUUID(),
        job_id: job.id,
        attempt_number: attempt.attempt_number + 1,
        tier: next,
        pool: TIER_POOLS[next]!,
        price_microcents: TIER_PRICES[next]!,
      };
      await client.query(
        `INSERT INTO job_attempts (id, job_id, attempt_number, tier, pool, status, price_microcents) VALUES ($1, $2, $3, $4, $5, 'queued', $6)`,
        [nextAttempt.id, job.id, nextAttempt.attempt_number, next, nextAttempt.pool, nextAttempt.price_microcents],
      );
      await client.query('UPDATE jobs SET current_tier = $2, attempts = $3, updated_at = now() WHERE id = $1', [
        job.id, next, nextAttempt.attempt_number,
      ]);
      effects.dispatch.push({
        job: { id: job.id, account_id: job.account_id, kind: job.kind, request: job.request as JobForTask['request'], deadline_at: job.deadline_at, input_key: job.input_key },
        attempt: nextAttempt,
      });
      effects.signals.push({ jobId: job.id, signal: { kind: 'escalated', tier: next } });
      return;
    }

    await failJob(client, job, {
      code: report.errorCode || 'SCRAPE_FAILED',
      message: report.errorMessage || 'The scrape failed',
      statusCode: report.statusCode || undefined,
      details: {
        last_tier: attempt.tier,
        attempts: attempt.attempt_number,
        ...(report.statusCode ? { target_status_code: report.statusCode } : {}),
      },
    });
    effects.signals.push({ jobId: job.id, signal: { kind: 'ended' } });
  });
  if (effects.dispatch.length > 0 || effects.signals.length > 0) {
    deps.log.debug({ jobId: report.jobId, attemptId: report.attemptId, ok: report.ok }, 'attempt report applied');
  }
  return effects;
}
