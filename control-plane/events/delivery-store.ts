import { WEBHOOK_DISABLE_AFTER_FAILURES } from '../../common/limits.js';
import type { Db } from '../jobs/job-store.js';
import type { RequestWebhook } from './record-event.js';

/** A delivery whose next attempt is due, with what its task is built from. */
export interface DueDelivery {
  id: string;
  subscription_id: string | null;
  account_id: string;
  event_type: string;
  url: string;
  attempt_count: number;
  body: string;
  request_webhook: RequestWebhook | null;
  /** Sealed secrets (secret-box.ts sealText). */
  subscription_secret_sealed: Buffer | null;
  subscription_active: boolean | null;
  account_secret_sealed: Buffer | null;
}

/**
 * Leases up to `limit` deliveries whose next attempt is due for `leaseMs`:
 * an attempt whose lease passes without a report (its task was lost) is sent
 * again under the same attempt number, and so the same message id.
 */
export async function leaseDueDeliveries(db: Db, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  const res = await db.query<DueDelivery>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
       WHERE status IN ('pending', 'retrying') AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.event_id, d.subscription_id, d.account_id, d.event_type, d.url, d.attempt_count
     )
     SELECT l.id, l.subscription_id, l.account_id, l.event_type, l.url, l.attempt_count, e.body, e.request_webhook,
            s.secret_sealed AS subscription_secret_sealed, s.is_active AS subscription_active,
            a.webhook_secret_sealed AS account_secret_sealed
     FROM leased l JOIN event_outbox e ON e.id = l.event_id JOIN accounts a ON a.id = l.account_id
     LEFT JOIN webhook_subscriptions s ON s.id = l.subscription_id`,
    [limit, leaseMs],
  );
  return res.rows;
}

/** Ends deliveries that will not be attempted again (their subscription was disabled) as failed. */
export async function abandonDeliveries(db: Db, ids: readonly string[], reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_until = NULL, error_message = $2, updated_at = now()
     WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'retrying')`,
    [ids, reason],
  );
}

/** The account's sealed secret for per-request deliveries, `freshSealed` on first use; `rotate` replaces it. */
export async function accountWebhookSecret(db: Db, accountId: string, freshSealed: Buffer, rotate: boolean): Promise<Buffer> {
  const res = await db.query<{ webhook_secret_sealed: Buffer }>(
    `UPDATE accounts SET webhook_secret_sealed = CASE WHEN $3 OR webhook_secret_sealed IS NULL THEN $2 ELSE webhook_secret_sealed END
     WHERE id = $1 RETURNING webhook_secret_sealed`,
    [accountId, freshSealed, rotate],
  );
  return res.rows[0]!.webhook_secret_sealed;
}

/** How one attempt went, as the webhooks pool reported it. */
export interface AttemptResult {
  deliveryId: string;
  attempt: number;
  success: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  error: string | null;
  startedAt: Date;
}

/**
 * Records an attempt, in one statement, unless it was recorded already (a
 * redelivered report): the delivery succeeds, is retried after the attempt's
 * delay, or fails at its last attempt. A subscription's failure count is
 * reset by a success and grows by one per failed attempt; at
 * WEBHOOK_DISABLE_AFTER_FAILURES in a row the subscription is disabled and
 * its other open deliveries fail. Answers whether anything changed.
 */
export async function recordAttempt(db: Db, result: AttemptResult, retryDelaysMs: readonly number[]): Promise<boolean> {
  const res = await db.query(
    `WITH input AS (
       SELECT $1::uuid AS id, $2::integer AS attempt, $3::boolean AS success, $4::integer AS status_code,
              $5::integer AS response_time_ms, $6::text AS error, $7::timestamptz AS started_at, $8::integer[] AS delays
     ), current AS (
       SELECT id FROM webhook_deliveries WHERE id = $1 AND attempt_count = $2 - 1 AND status IN ('pending', 'retrying') FOR UPDATE
     ), attempted AS (
       UPDATE webhook_deliveries d SET attempt_count = $2,
              status = CASE WHEN $3 THEN 'success' WHEN $2 >= d.max_attempts THEN 'failed' ELSE 'retrying' END,
              next_attempt_at = CASE WHEN $3 OR $2 >= d.max_attempts THEN NULL
                                     ELSE now() + make_interval(secs => input.delays[input.attempt] / 1000.0) END,
              lease_until = NULL, response_status_code = input.status_code, response_time_ms = input.response_time_ms,
              error_message = input.error, updated_at = now(),
              attempts = d.attempts || jsonb_build_array(jsonb_build_object(
                'attempt', input.attempt, 'started_at', input.started_at, 'finished_at', now(), 'status_code', input.status_code,
                'response_time_ms', input.response_time_ms, 'error', input.error))
       FROM current, input WHERE d.id = current.id
       RETURNING d.id, d.subscription_id
     ), subscription AS (
       UPDATE webhook_subscriptions s
       SET failure_count = CASE WHEN $3 THEN 0 ELSE s.failure_count + 1 END,
           last_success_at = CASE WHEN $3 THEN now() ELSE s.last_success_at END,
           is_active = s.is_active AND ($3 OR s.failure_count + 1 < ${WEBHOOK_DISABLE_AFTER_FAILURES}),
           disabled_at = CASE WHEN s.is_active AND NOT $3 AND s.failure_count + 1 >= ${WEBHOOK_DISABLE_AFTER_FAILURES} THEN now()
                              ELSE s.disabled_at END
       FROM attempted WHERE s.id = attempted.subscription_id
       RETURNING s.id, s.is_active
     ), abandoned AS (
       UPDATE webhook_deliveries d SET status = 'failed', next_attempt_at = NULL, lease_until = NULL, updated_at = now(),
              error_message = 'The subscription was disabled after ${WEBHOOK_DISABLE_AFTER_FAILURES} failed attempts in a row'
       FROM subscription WHERE NOT subscription.is_active AND d.subscription_id = subscription.id
         AND d.status IN ('pending', 'retrying') AND d.id <> $1
     )
     SELECT id FROM attempted`,
    [
      result.deliveryId, result.attempt, result.success, result.statusCode, result.responseTimeMs, result.error,
      result.startedAt, retryDelaysMs,
    ],
  );
  return (res.rowCount ?? 0) > 0;
}
