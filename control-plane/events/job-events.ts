import { MICROCENTS_PER_CREDIT } from '../../common/pricing.js';
import { JOB_EVENTS } from '../../common/event-types.js';
import { recordEventsCte } from './record-event.js';

/** A timestamptz as ISO 8601 in UTC with milliseconds, as JavaScript writes it. */
export const isoSql = (expr: string) => `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const credits = (microcents: string) => `(${microcents} / ${MICROCENTS_PER_CREDIT}.0)::float8`;

/**
 * The `data` of job.completed and job.failed (SPEC 6.3) for the ended job
 * row `j` (columns of jobs) whose attempts, as they now are, are in the
 * relation `attempts` (attempt_number, tier, status, result,
 * credits_microcents). job.completed's result carries status_code here;
 * content, title and metadata are added from the stored result when the
 * event is published (event-body.ts).
 */
function endedJobPayload(attempts: string): string {
  return `CASE WHEN j.status = 'succeeded' THEN jsonb_build_object(
         'job_id', j.id, 'batch_id', NULL, 'url', j.url, 'status', 'succeeded',
         'result', jsonb_build_object('status_code', j.status_code, 'content', NULL, 'title', NULL, 'metadata', NULL),
         'billing', jsonb_build_object('total_credits', ${credits('j.charged_microcents')}, 'tier_used', j.current_tier,
           'escalations', (SELECT coalesce(jsonb_agg(jsonb_build_object('tier', a.tier, 'result', coalesce(a.result, a.status),
                                   'credits', ${credits('a.credits_microcents')}) ORDER BY a.attempt_number), '[]'::jsonb)
                           FROM ${attempts} a WHERE a.status IN ('succeeded', 'failed'))),
         'timing', jsonb_build_object('queued_at', ${isoSql('j.created_at')}, 'started_at', ${isoSql('j.started_at')},
           'completed_at', ${isoSql('j.completed_at')},
           'duration_ms', round(extract(epoch FROM j.completed_at - coalesce(j.started_at, j.created_at)) * 1000)::bigint))
       ELSE jsonb_build_object(
         'job_id', j.id, 'url', j.url, 'status', 'failed',
         'error', jsonb_build_object('code', j.error_code, 'message', j.error_message,
           'details', jsonb_build_object('last_tier', coalesce(j.error_details->'last_tier', to_jsonb(j.current_tier)),
                                         'attempts', coalesce(j.error_details->'attempts', to_jsonb(j.attempts)))),
         'billing', jsonb_build_object('total_credits', ${credits('j.charged_microcents')}, 'refunded', true, 'reason', j.error_code))
       END`;
}

/**
 * Records job.completed or job.failed for each row of `ended` (jobs columns
 * plus request_webhook), in the statement that ends the job.
 */
export function endedJobEventCte(name: string, ended: string, attempts: string): string {
  return recordEventsCte(
    name,
    `(SELECT j.account_id,
             CASE WHEN j.status = 'succeeded' THEN '${JOB_EVENTS.completed}' ELSE '${JOB_EVENTS.failed}' END AS type,
             ${endedJobPayload(attempts)} AS payload, j.request_webhook
      FROM ${ended} j) AS ended_job_event`,
  );
}

/**
 * Records job.started for each row of `started` (jobs columns plus request_webhook), in the statement that starts
 * the job. With `atStart` the event is dated by the row's started_at (a start recorded with the attempt's end).
 */
export function startedJobEventCte(name: string, started: string, opts: { atStart?: boolean } = {}): string {
  return recordEventsCte(
    name,
    `(SELECT j.account_id, '${JOB_EVENTS.started}' AS type,
             jsonb_build_object('job_id', j.id, 'batch_id', NULL, 'url', j.url, 'status', 'running', 'tier', j.current_tier,
                                'attempt', j.attempts, 'started_at', ${isoSql('j.started_at')}) AS payload,
             j.request_webhook${opts.atStart ? ', j.started_at AS created_at' : ''}
      FROM ${started} j) AS started_job_event`,
    { datedBySource: opts.atStart === true },
  );
}
