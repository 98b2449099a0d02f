import type pg from 'pg';
import { WEBHOOK_MAX_ATTEMPTS } from '../../common/limits.js';
import { JOB_EVENTS } from '../../common/event-types.js';
import { UUID_PATTERN } from '../../common/ids.js';
import type { OutboxEvent } from './event-body.js';

/**
 * Events not yet published, oldest first, locked so two relays never take
 * the same one (the events only: their jobs stay unlocked). A job.completed
 * event comes with its job's result key, read in the same query.
 */
export async function lockUnpublishedEvents(client: pg.PoolClient, limit: number): Promise<OutboxEvent[]> {
  const res = await client.query<OutboxEvent>(
    `SELECT e.id, e.account_id, e.type, e.payload, e.created_at, j.result_key
     FROM event_outbox e
     LEFT JOIN jobs j ON e.type = $2 AND j.id = CASE WHEN e.payload->>'job_id' ~* $3 THEN (e.payload->>'job_id')::uuid END
     WHERE e.published_at IS NULL ORDER BY e.created_at LIMIT $1 FOR UPDATE OF e SKIP LOCKED`,
    [limit, JOB_EVENTS.completed, UUID_PATTERN.source],
  );
  return res.rows;
}

/**
 * Marks the events published with their rendered bodies and creates their
 * webhook deliveries, due now: one per active subscription of a user of the
 * event's account that names its type, and one for the event's per-request
 * target (when it wants this type). A delivery that exists already is kept,
 * so doing this twice creates nothing twice. Answers how many deliveries
 * were created.
 */
export async function publishAndFanOut(client: pg.PoolClient, rendered: ReadonlyArray<{ id: string; body: string }>): Promise<number> {
  const res = await client.query(
    `WITH rendered AS (SELECT * FROM unnest($1::uuid[], $2::text[]) AS t(id, body)),
     published AS (
       UPDATE event_outbox e SET published_at = now(), body = rendered.body FROM rendered WHERE e.id = rendered.id
       RETURNING e.id, e.account_id, e.type, e.request_webhook
     )
     INSERT INTO webhook_deliveries (event_id, subscription_id, account_id, event_type, url, max_attempts, next_attempt_at)
     SELECT p.id, s.id, p.account_id, p.type, s.url, ${WEBHOOK_MAX_ATTEMPTS}, now()
     FROM published p JOIN account_webhook_subscriptions s ON s.account_id = p.account_id AND s.is_active AND p.type = ANY(s.events)
     UNION ALL
     SELECT p.id, NULL, p.account_id, p.type, p.request_webhook->>'url', ${WEBHOOK_MAX_ATTEMPTS}, now()
     FROM published p
     WHERE p.request_webhook IS NOT NULL AND (NOT p.request_webhook ? 'events' OR p.request_webhook->'events' ? p.type)
     ON CONFLICT DO NOTHING`,
    [rendered.map((r) => r.id), rendered.map((r) => r.body)],
  );
  return res.rowCount ?? 0;
}
