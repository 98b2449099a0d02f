import type { JsonObject } from '@bufbuild/protobuf';
import type pg from 'pg';
import { ledgerEntryCtes } from '../billing/ledger.js';
import { SUBSCRIPTION_REFUSES_DISPATCH_SQL } from '../billing/subscription.js';
import { endedJobEventCte, startedJobEventCte } from '../events/job-events.js';
import type { RequestWebhook } from '../events/record-event.js';

/**
 * Every statement on jobs and job_attempts. Each state change is one
 * statement (one round trip, its own transaction) guarded by the row's
 * current state, so a repeated call (a redelivered report, a second sweeper)
 * changes nothing the second time.
 */
export type Db = pg.Pool | pg.PoolClient;

/** Runs a statement prepared once per connection, so Postgres parses and plans its text once. */
function run<R extends pg.QueryResultRow>(db: Db, name: string, text: string, values: unknown[]) {
  return db.query<R>({ name: `trawl-${name}`, text, values });
}

export interface AttemptRow {
  id: string;
  job_id: string;
  attempt_number: number;
  tier: string;
  pool: string;
  price_microcents: number | string;
}

/** What a task is built from. */
export interface JobForTask {
  id: string;
  account_id: string;
  kind: string;
  request: JsonObject;
  deadline_at: Date;
  input_key: string | null;
}

/** What a job is asked to do, as recorded. */
export interface JobRequestFields {
  kind: 'scrape' | 'extract' | 'map';
  url: string;
  mode: string;
  formats: string[];
  sync: boolean;
  request: JsonObject;
  tierPlan: string[];
  reserveMicrocents: number;
  /**
   * What the plan reserves when it stops after each of its tiers (rising; the
   * last is reserveMicrocents). Admission keeps the longest prefix of the plan
   * the balance and the key's budget can cover. Absent: the whole plan at reserveMicrocents.
   */
  reserveSteps?: number[];
  deadline: Date;
  /** The per-request target the job's events also go to (webhook_url). */
  requestWebhook?: RequestWebhook | null;
}

export interface NewJob extends JobRequestFields {
  id: string;
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  inputKey: string | null;
  ledgerReference: string;
  firstAttempt: AttemptRow;
  /** Recorded on the job when the reservation is refused. */
  rejection: { code: string; message: string; httpStatus: number };
  /** Recorded instead when the account's subscription refuses dispatch (past due or cancelled). */
  subscriptionRejection: { code: string; message: string; httpStatus: number };
}

/**
 * What a job of the account may reserve: the balance, and the key's budget
 * left in its period when it has one (one row, `amount`). The key-budget
 * trigger and the ledger still decide under their locks; this only picks a
 * plan's length, at admission and in the estimate.
 */
const allowanceSql = (account: string, key: string) => `SELECT LEAST(a.balance_microcents, coalesce(k.remaining, a.balance_microcents)) AS amount
       FROM accounts a LEFT JOIN LATERAL (
         SELECT l.budget_limit_microcents - api_key_spend_since(l.api_key_id, api_key_period_start(l.reset_period, now())) AS remaining
         FROM api_key_limits l WHERE l.api_key_id = ${key}::uuid AND l.enabled AND l.budget_limit_microcents IS NOT NULL
       ) k ON true
       WHERE a.id = ${account}::uuid`;

/** What a job of the account, sent with the key, may reserve now (allowanceSql). */
export async function accountAllowance(db: Db, accountId: string, keyId: string | null): Promise<number> {
  const res = await run<{ amount: string }>(db, 'account-allowance', allowanceSql('$1', '$2'), [accountId, keyId]);
  return Number(res.rows[0]?.amount ?? 0);
}

const INSERT_JOB_SQL = `WITH subscription AS (
       SELECT ${SUBSCRIPTION_REFUSES_DISPATCH_SQL} AS inactive FROM accounts WHERE id = $2::uuid
     ), allowance AS (
       ${allowanceSql('$2', '$3')}
     ), plan_cut AS (
       -- The longest prefix of the plan whose reservation fits (at least the first tier, which is refused when it does not).
       SELECT n, LEAST(($27::bigint[])[n], $12::bigint) AS reserve
       FROM (SELECT coalesce((SELECT max(s.n) FROM unnest($27::bigint[]) WITH ORDINALITY AS s(cost, n), allowance WHERE s.cost <= allowance.amount), 1)::int AS n) AS cut
     ), ledger_input AS (SELECT $2::uuid AS account_id, 'reserve'::text AS kind, -(SELECT reserve FROM plan_cut) AS amount, $19::text AS reference
       WHERE NOT EXISTS (SELECT 1 FROM subscription WHERE inactive)),
     ${ledgerEntryCtes('ledger_input')},
     job AS (
       INSERT INTO jobs (id, account_id, api_key_id, kind, status, url, mode, formats, sync, request, tier_plan, current_tier,
                         attempts, reserved_microcents, request_id, deadline_at, input_key, completed_at,
                         error_code, error_message, error_http_status, request_webhook)
       SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, CASE WHEN ok THEN 'pending' ELSE 'rejected' END, $5::text, $6::text,
              $7::text[], $8::boolean, $9::jsonb, ($10::text[])[1:(SELECT n FROM plan_cut)], $11::text,
              CASE WHEN ok THEN 1 ELSE 0 END, CASE WHEN ok THEN (SELECT reserve FROM plan_cut) ELSE 0 END, $13::text, $14::timestamptz, $15::text,
              CASE WHEN ok THEN NULL ELSE now() END, CASE WHEN ok THEN NULL WHEN inactive THEN $23::text ELSE $20::text END,
              CASE WHEN ok THEN NULL WHEN inactive THEN $24::text ELSE $21::text END,
              CASE WHEN ok THEN NULL WHEN inactive THEN $25::integer ELSE $22::integer END, $26::jsonb
       FROM (SELECT EXISTS (SELECT 1 FROM ledger_entry) AS ok, EXISTS (SELECT 1 FROM subscription WHERE inactive) AS inactive) AS reservation
       RETURNING id, status
     ), attempt AS (
       INSERT INTO job_attempts (id, job_id, attempt_number, tier, pool, status, price_microcents)
       SELECT $16::uuid, id, 1, $11::text, $17::text, 'queued', $18::bigint FROM job WHERE status = 'pending'
     )
     SELECT (SELECT balance_microcents FROM ledger_account) AS before, (SELECT balance_after_microcents FROM ledger_entry) AS after,
            EXISTS (SELECT 1 FROM subscription WHERE inactive) AS subscription_inactive`;

/**
 * Reserves the job's price, records the job and its first attempt in one
 * statement. A balance that cannot cover the reservation, or a subscription
 * that refuses dispatch, records the job as rejected, without an attempt.
 * Answers the balance before and, when the reservation went through, after.
 */
export async function insertJobWithReservation(
  db: Db,
  job: NewJob,
): Promise<{ admitted: boolean; balanceMicrocents: number; subscriptionInactive: boolean }> {
  const res = await run<{ before: string | null; after: string | null; subscription_inactive: boolean }>(db, 'insert-job', INSERT_JOB_SQL, [
    job.id, job.accountId, job.apiKeyId, job.kind, job.url, job.mode, job.formats, job.sync, job.request, job.tierPlan,
    job.firstAttempt.tier, job.reserveMicrocents, job.requestId, job.deadline, job.inputKey, job.firstAttempt.id,
    job.firstAttempt.pool, job.firstAttempt.price_microcents, job.ledgerReference,
    job.rejection.code, job.rejection.message, job.rejection.httpStatus,
    job.subscriptionRejection.code, job.subscriptionRejection.message, job.subscriptionRejection.httpStatus,
    job.requestWebhook ?? null,
    job.reserveSteps ?? job.tierPlan.map(() => job.reserveMicrocents),
  ]);
  const row = res.rows[0]!;
  if (row.after !== null) return { admitted: true, balanceMicrocents: Number(row.after), subscriptionInactive: false };
  return { admitted: false, balanceMicrocents: Number(row.before ?? 0), subscriptionInactive: row.subscription_inactive };
}

/** The details of a rejected job's error, as its immediate answer carried them, for whoever polls it later. */
export async function recordRejectionDetails(db: Db, jobId: string, details: Record<string, unknown>): Promise<void> {
  await run(db, 'record-rejection-details', `UPDATE jobs SET error_details = $2::jsonb WHERE id = $1::uuid AND status = 'rejected'`, [jobId, details]);
}

/**
 * Records a job answered from the response cache: succeeded at once, with
 * no attempt, nothing reserved and nothing charged (a cache hit is free,
 * SPEC 7.5), its result already stored at `resultKey`.
 */
/**
 * Records a request answered from the result cache as a succeeded job of its
 * own; answers false, recording nothing, when the account's subscription
 * refuses requests (a cached answer is a request like another).
 */
export async function insertCachedJob(
  db: Db,
  job: Omit<JobRequestFields, 'reserveMicrocents'> & { id: string; accountId: string; apiKeyId: string | null; requestId: string; tier: string; resultKey: string },
): Promise<boolean> {
  const res = await run(
    db,
    'insert-cached-job',
    `INSERT INTO jobs (id, account_id, api_key_id, kind, status, url, mode, formats, sync, request, tier_plan, current_tier,
                       attempts, request_id, deadline_at, result_key, status_code, started_at, completed_at)
     SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, 'succeeded', $5::text, $6::text, $7::text[], $8::boolean, $9::jsonb, $10::text[], $11::text,
            0, $12::text, $13::timestamptz, $14::text, NULL, now(), now()
     WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE id = $2::uuid AND ${SUBSCRIPTION_REFUSES_DISPATCH_SQL})`,
    [job.id, job.accountId, job.apiKeyId, job.kind, job.url, job.mode, job.formats, job.sync, job.request, job.tierPlan, job.tier, job.requestId, job.deadline, job.resultKey],
  );
  return res.rowCount === 1;
}

export interface StartedAttempt {
  jobId: string;
  attemptId: string;
  workerId: string;
  deliveries: number;
}

/*
 * Statements that change many rows take their locks in one order (jobs
 * before attempts, each by id), as the single-row statements do (a job
 * before its attempt), so two of them never wait on each other in a cycle.
 */

const MARK_STARTED_SQL = `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::integer[]) AS t(attempt_id, job_id, worker_id, deliveries)
     ), locked_jobs AS (
       SELECT id FROM jobs WHERE id IN (SELECT job_id FROM input) AND status = 'pending' ORDER BY id FOR UPDATE
     ), locked_attempts AS (
       SELECT id FROM job_attempts
       WHERE id IN (SELECT attempt_id FROM input) AND status IN ('queued', 'running') AND (SELECT count(*) FROM locked_jobs) >= 0
       ORDER BY id FOR UPDATE
     ), attempt AS (
       UPDATE job_attempts a SET status = 'running', started_at = coalesce(a.started_at, now()), worker_id = input.worker_id,
              deliveries = GREATEST(a.deliveries, input.deliveries)
       FROM input WHERE a.id = input.attempt_id AND a.id IN (SELECT id FROM locked_attempts)
     ), started_jobs AS (
       UPDATE jobs j SET status = 'running', started_at = coalesce(j.started_at, now()), updated_at = now()
       WHERE j.id IN (SELECT id FROM locked_jobs)
       RETURNING j.id, j.account_id, j.url, j.current_tier, j.attempts, j.started_at, j.request_webhook
     ), ${startedJobEventCte('started_event', 'started_jobs')}
     SELECT count(*) FROM started_jobs`;

/** Marks attempts (and their pending jobs) running, many in one statement, recording job.started for each job that starts. */
export async function markAttemptsStarted(db: Db, started: readonly StartedAttempt[]): Promise<void> {
  await run(db, 'mark-started', MARK_STARTED_SQL, [
    started.map((s) => s.attemptId),
    started.map((s) => s.jobId),
    started.map((s) => s.workerId),
    started.map((s) => s.deliveries),
  ]);
}

/** The outbox flag: these attempts' tasks are on the WORK stream (only queued ones still need it). */
export async function markAttemptsPublished(db: Db, attemptIds: readonly string[]): Promise<void> {
  await run(
    db,
    'mark-published',
    `UPDATE job_attempts SET published = true
     WHERE id IN (SELECT id FROM job_attempts WHERE id = ANY($1::uuid[]) AND NOT published AND status = 'queued' ORDER BY id FOR UPDATE)`,
    [attemptIds],
  );
}

export interface AttemptRecord {
  tier: string;
  status: string;
  result: string | null;
  credits_microcents: number;
  duration_ms: number | null;
}

export interface JobRecord {
  id: string;
  account_id: string;
  status: string;
  url: string;
  mode: string;
  formats: string[];
  sync: boolean;
  current_tier: string | null;
  attempts: number;
  reserved_microcents: string;
  charged_microcents: string;
  refunded_microcents: string;
  result_key: string | null;
  error_code: string | null;
  error_message: string | null;
  error_http_status: number | null;
  error_details: Record<string, unknown> | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  attempt_list: AttemptRecord[];
  balance_microcents: string;
  /** The request as recorded (its add-ons are shown in billing). */
  request: JsonObject | null;
  /** Where a large body or extract content waits for the worker, if it does. */
  input_key: string | null;
}

/** The jobs columns of a JobRecord. */
const JOB_RECORD_FIELDS = [
  'id', 'account_id', 'status', 'url', 'mode', 'formats', 'sync', 'current_tier', 'attempts', 'reserved_microcents',
  'charged_microcents', 'refunded_microcents', 'result_key', 'error_code', 'error_message', 'error_http_status',
  'error_details', 'created_at', 'started_at', 'completed_at', 'request', 'input_key',
];
const JOB_RECORD_COLUMNS = JOB_RECORD_FIELDS.map((f) => `j.${f}`).join(', ');

/** A job's attempts in order as a JSON array of AttemptRecord, from `source` (rows named a). */
const attemptList = (source: string) => `(SELECT coalesce(json_agg(json_build_object('tier', a.tier, 'status', a.status, 'result', a.result,
         'credits_microcents', a.credits_microcents, 'duration_ms', a.duration_ms) ORDER BY a.attempt_number), '[]'::json)
       FROM ${source})`;

/** What a worker reported about a finished attempt. */
export interface AttemptOutcome {
  attemptId: string;
  succeeded: boolean;
  /** "success", or the failure classification in lower case. */
  result: string;
  errorCode: string | null;
  errorMessage: string | null;
  escalate: boolean;
  statusCode: number | null;
  fetchMs: number;
  durationMs: number;
  bytes: number;
  workerId: string;
  /** When the worker took the task up, for an attempt that sent no STARTED report (it ended soon after); else null. */
  startedAt: Date | null;
  /** The delivery the report came from (a redelivered task counts up). */
  deliveries: number;
}

/** $1-$14 of the statements that finish an attempt (FINISH_ATTEMPT, QUICK_START). */
const attemptParams = (jobId: string, a: AttemptOutcome) => [
  jobId, a.attemptId, a.succeeded ? 'succeeded' : 'failed', a.result, a.errorCode, a.errorMessage, a.escalate,
  a.statusCode, a.fetchMs, a.durationMs, a.bytes, a.workerId, a.startedAt, a.deliveries,
];

/** The job, locked, while it is still open ($1: job id). */
const OPEN_JOB = `open_job AS (
       SELECT id, account_id, reserved_microcents, status, url, current_tier, attempts, created_at, request_webhook
       FROM jobs WHERE id = $1 AND status IN ('pending', 'running') FOR UPDATE
     )`;

/**
 * Finishes attempt $2 of open job $1 unless it already finished (a redelivered report); parameters $3-$14 from
 * attemptParams. An attempt that sent no STARTED report started at $13.
 */
const FINISH_ATTEMPT = `finished AS (
       UPDATE job_attempts SET status = $3::text, result = $4, error_code = $5, error_message = $6, escalate = $7,
              status_code = $8, credits_microcents = CASE WHEN $3::text = 'succeeded' THEN price_microcents ELSE 0 END,
              fetch_ms = $9, duration_ms = $10, bytes = $11, worker_id = $12, finished_at = now(),
              started_at = coalesce(started_at, GREATEST(LEAST($13::timestamptz, now()), created_at), now()),
              deliveries = GREATEST(deliveries, $14::integer)
       WHERE id = $2 AND job_id = $1 AND status NOT IN ('succeeded', 'failed') AND EXISTS (SELECT 1 FROM open_job)
       RETURNING id, tier, attempt_number, price_microcents, status, result, credits_microcents, duration_ms
     )`;

/**
 * A job that had not started when an attempt that sent no STARTED report ended ($13: when the worker took it
 * up): it starts at that moment, kept before now (by a millisecond, so that its job.started comes before whatever
 * ends the job in the same statement) and not before the job's creation.
 */
const QUICK_START = `quick_start AS (
       SELECT id, account_id, url, current_tier, attempts, request_webhook,
              GREATEST(LEAST($13::timestamptz, now() - interval '1 millisecond'), created_at) AS started_at
       FROM open_job WHERE status = 'pending' AND $13::timestamptz IS NOT NULL AND EXISTS (SELECT 1 FROM finished)
     ), ${startedJobEventCte('quick_start_event', 'quick_start', { atStart: true })}`;

export interface JobClosing {
  jobId: string;
  ledgerReference: string;
  /** The attempt whose report ends the job; none when the job ends without one (deadline, time-out). */
  attempt: AttemptOutcome | null;
  /** Set on success: the stored result. */
  resultKey: string | null;
  statusCode: number | null;
  /** Set on failure: the public error. Details gain last_tier and attempts when an attempt ends the job. */
  error: { code: string; message: string; httpStatus: number; details: Record<string, unknown> | null } | null;
}

const CLOSE_JOB_SQL = `WITH ${OPEN_JOB}, ${FINISH_ATTEMPT}, ${QUICK_START},
     closing AS (
       SELECT id, account_id, reserved_microcents,
              CASE WHEN $3::text = 'succeeded'
                   THEN LEAST(coalesce((SELECT price_microcents FROM finished), 0), reserved_microcents) ELSE 0 END AS charged
       FROM open_job WHERE $2::uuid IS NULL OR EXISTS (SELECT 1 FROM finished)
     ), ledger_input AS (
       SELECT account_id, CASE WHEN $3::text = 'succeeded' THEN 'settle' ELSE 'refund' END AS kind,
              reserved_microcents - charged AS amount, $15::text AS reference
       FROM closing
     ), ${ledgerEntryCtes('ledger_input')},
     closed AS (
       UPDATE jobs SET status = $3::text, charged_microcents = closing.charged,
              refunded_microcents = CASE WHEN $3::text = 'failed' THEN closing.reserved_microcents ELSE 0 END,
              result_key = $16, status_code = $17, error_code = $18, error_message = $19, error_http_status = $20,
              error_details = CASE WHEN $18::text IS NULL THEN NULL
                                   ELSE coalesce($21::jsonb, '{}'::jsonb)
                                        || coalesce((SELECT jsonb_build_object('last_tier', tier, 'attempts', attempt_number) FROM finished), '{}'::jsonb)
                              END,
              completed_at = now(), updated_at = now(),
              started_at = coalesce(jobs.started_at, (SELECT started_at FROM quick_start), CASE WHEN $3::text = 'succeeded' THEN now() END)
       FROM closing WHERE jobs.id = closing.id
       RETURNING ${JOB_RECORD_FIELDS.map((f) => `jobs.${f}`).join(', ')}, jobs.status_code, jobs.request_webhook
     ), attempts_now AS (
       SELECT a.attempt_number, a.tier, coalesce(f.status, a.status) AS status,
              CASE WHEN f.id IS NULL THEN a.result ELSE f.result END AS result,
              coalesce(f.credits_microcents, a.credits_microcents) AS credits_microcents,
              CASE WHEN f.id IS NULL THEN a.duration_ms ELSE f.duration_ms END AS duration_ms
       FROM job_attempts a LEFT JOIN finished f ON f.id = a.id WHERE a.job_id = $1
     ), ${endedJobEventCte('ended_event', 'closed', 'attempts_now')}
     SELECT ${JOB_RECORD_COLUMNS}, ${attemptList('attempts_now a')} AS attempt_list,
            coalesce((SELECT balance_after_microcents FROM ledger_entry), (SELECT balance_microcents FROM ledger_account)) AS balance_microcents
     FROM closed j`;

/**
 * Ends a job that is still open, in one statement: finishes the attempt,
 * moves the money (a success settles, returning the part of the reservation
 * its attempt's price does not use; a failure refunds it all) and records the
 * outcome, with its job.completed or job.failed event. Answers the job as it now is, with its attempts and the account's
 * balance, or null when the job had already ended or the attempt had already
 * finished: nothing changed.
 */
export async function closeJob(db: Db, closing: JobClosing): Promise<JobRecord | null> {
  const succeeded = closing.error === null;
  const attempt: AttemptOutcome = closing.attempt ?? {
    attemptId: '', succeeded, result: '', errorCode: null, errorMessage: null, escalate: false,
    statusCode: null, fetchMs: 0, durationMs: 0, bytes: 0, workerId: '', startedAt: null, deliveries: 0,
  };
  const params = attemptParams(closing.jobId, attempt);
  params[1] = closing.attempt?.attemptId ?? null;
  params[2] = succeeded ? 'succeeded' : 'failed';
  const res = await run<JobRecord>(db, 'close-job', CLOSE_JOB_SQL, [
    ...params, closing.ledgerReference, closing.resultKey, closing.statusCode,
    closing.error?.code ?? null, closing.error?.message ?? null, closing.error?.httpStatus ?? null,
    closing.error?.details ?? null,
  ]);
  return res.rows[0] ?? null;
}

/** What escalation reads about a failed attempt's job. */
export interface EscalationContext extends JobForTask {
  tier_plan: string[];
  tier: string;
}

export async function loadEscalationContext(db: Db, jobId: string, attemptId: string): Promise<EscalationContext | undefined> {
  const res = await run<EscalationContext>(
    db,
    'escalation-context',
    `SELECT j.id, j.account_id, j.kind, j.request, j.deadline_at, j.input_key, j.tier_plan, a.tier
     FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE a.id = $1 AND a.job_id = $2`,
    [attemptId, jobId],
  );
  return res.rows[0];
}

const ESCALATE_SQL = `WITH ${OPEN_JOB}, ${FINISH_ATTEMPT}, ${QUICK_START},
     next_attempt AS (
       INSERT INTO job_attempts (id, job_id, attempt_number, tier, pool, status, price_microcents)
       SELECT $15, $1, attempt_number + 1, $16, $17, 'queued', $18 FROM finished
       RETURNING attempt_number
     ), moved AS (
       UPDATE jobs SET current_tier = $16, attempts = next_attempt.attempt_number, updated_at = now(),
              status = CASE WHEN EXISTS (SELECT 1 FROM quick_start) THEN 'running' ELSE jobs.status END,
              started_at = coalesce(jobs.started_at, (SELECT started_at FROM quick_start))
       FROM next_attempt WHERE jobs.id = $1
     )
     SELECT attempt_number FROM next_attempt`;

/**
 * Fails an attempt and queues the next one on `next` for the same open job,
 * in one statement. Answers the new attempt's number, or null when the job
 * had ended or the attempt had already finished.
 */
export async function escalateAttempt(
  db: Db,
  jobId: string,
  failed: AttemptOutcome,
  next: { id: string; tier: string; pool: string; priceMicrocents: number },
): Promise<number | null> {
  const res = await run<{ attempt_number: number }>(db, 'escalate', ESCALATE_SQL, [
    ...attemptParams(jobId, failed), next.id, next.tier, next.pool, next.priceMicrocents,
  ]);
  return res.rows[0]?.attempt_number ?? null;
}

const LOAD_JOB_SQL = `SELECT ${JOB_RECORD_COLUMNS}, acc.balance_microcents, ${attemptList('job_attempts a WHERE a.job_id = j.id')} AS attempt_list
     FROM jobs j JOIN accounts acc ON acc.id = j.account_id
     WHERE j.id = $1 AND j.account_id = $2`;

/** A job with its attempts and its account's balance, in one query. Another account's job is not found. */
export async function loadJobRecord(db: Db, jobId: string, accountId: string): Promise<JobRecord | undefined> {
  const res = await run<JobRecord>(db, 'load-job', LOAD_JOB_SQL, [jobId, accountId]);
  return res.rows[0];
}

/** Queued attempts of open jobs committed more than olderThanMs ago whose task was never marked published. */
export async function loadUnpublishedAttempts(db: Db, olderThanMs: number, limit: number): Promise<Array<AttemptRow & { job: JobForTask }>> {
  const res = await db.query<AttemptRow & Omit<JobForTask, 'id'>>(
    `SELECT a.id, a.job_id, a.attempt_number, a.tier, a.pool, a.price_microcents, j.account_id, j.kind, j.input_key, j.request, j.deadline_at
     FROM job_attempts a JOIN jobs j ON j.id = a.job_id
     WHERE NOT a.published AND a.status = 'queued' AND j.status IN ('pending', 'running')
       AND a.created_at < now() - make_interval(secs => $1::double precision / 1000)
     LIMIT $2`,
    [olderThanMs, limit],
  );
  return res.rows.map((r) => ({
    id: r.id, job_id: r.job_id, attempt_number: r.attempt_number, tier: r.tier, pool: r.pool, price_microcents: r.price_microcents,
    job: { id: r.job_id, account_id: r.account_id, kind: r.kind, request: r.request, deadline_at: r.deadline_at, input_key: r.input_key },
  }));
}

/** Open jobs past their deadline. */
export async function loadOverdueJobIds(db: Db, limit: number): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM jobs WHERE status IN ('pending', 'running') AND deadline_at < now() LIMIT $1`,
    [limit],
  );
  return res.rows.map((r) => r.id);
}
