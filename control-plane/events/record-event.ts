import type { Db } from '../jobs/job-store.js';

/**
 * A per-request delivery target, as recorded on a job and copied to its
 * events: the `webhook_url` of a scrape, batch or SERP batch is {url}; a
 * crawl's `webhook` object adds the events it wants, its own secret (then
 * the delivery also carries X-Webhook-Signature and X-Webhook-Timestamp),
 * headers and metadata.
 */
export interface RequestWebhook {
  url: string;
  events?: string[];
  secret?: string;
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
}

/**
 * The one way an event is recorded: a common table expression named `name`
 * that inserts into event_outbox one event per row of `source`, a relation
 * with the columns account_id (uuid), type (text), payload (jsonb, the
 * event's `data`) and request_webhook (jsonb or null, a RequestWebhook).
 * Put it in the statement that makes the change the event reports, so the
 * event commits with the change or not at all. With `datedBySource`, the
 * source also has created_at (timestamptz): when the event happened, for an
 * event recorded after the fact (a quick attempt's job.started); otherwise
 * an event is dated by its transaction.
 */
export function recordEventsCte(name: string, source: string, opts: { datedBySource?: boolean } = {}): string {
  const columns = `account_id, type, payload, request_webhook${opts.datedBySource ? ', created_at' : ''}`;
  return `${name} AS (
       INSERT INTO event_outbox (${columns})
       SELECT ${columns} FROM ${source}
       RETURNING id
     )`;
}

export interface NewEvent {
  accountId: string;
  type: string;
  /** The event's `data` object. */
  payload: Record<string, unknown>;
  requestWebhook?: RequestWebhook | null;
}

/**
 * Records one event with recordEventsCte, on `db`: pass the client of the
 * transaction that makes the change. Answers the event id.
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const res = await db.query<{ id: string }>(
    `WITH input AS (SELECT $1::uuid AS account_id, $2::text AS type, $3::jsonb AS payload, $4::jsonb AS request_webhook),
     ${recordEventsCte('recorded', 'input')}
     SELECT id FROM recorded`,
    [event.accountId, event.type, event.payload, event.requestWebhook ?? null],
  );
  return res.rows[0]!.id;
}
