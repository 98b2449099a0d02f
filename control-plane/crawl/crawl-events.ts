import { recordEventsCte, type RequestWebhook } from '../events/record-event.js';
import type { Db } from '../jobs/job-store.js';

/** Account events of a crawl (SPEC 6.2 and the crawl webhook's events), as rows of event_outbox. */
export const CRAWL_OUTBOX_EVENTS = ['crawl.started', 'crawl.page.completed', 'crawl.page.failed', 'crawl.completed', 'crawl.failed'] as const;
export type CrawlOutboxEvent = (typeof CRAWL_OUTBOX_EVENTS)[number];

/** Events of the crawl's stream (SPEC 6.5); heartbeat and timeout are the stream's own. */
export type CrawlStreamEvent = 'page.completed' | 'page.failed' | 'crawl.progress' | 'crawl.completed';

/**
 * Something that happened to a crawl: recorded for the stream, for the
 * account's event outbox (webhooks), or both, under one payload.
 */
export interface CrawlHappening {
  stream?: CrawlStreamEvent;
  outbox?: CrawlOutboxEvent;
  data: Record<string, unknown>;
}

/** What the recorder needs to know of the crawl. */
export interface CrawlEventTarget {
  id: string;
  account_id: string;
  /**
   * Where the crawl's own events go besides the account's subscriptions: its
   * `webhook` object (with the events it asked for, all when none), or its
   * `webhook_url`, which receives crawl.completed only (SPEC 2.10).
   */
  requestWebhook: RequestWebhook | null;
}

/**
 * Events that go to the outbox whatever the crawl asked: those a registered
 * subscription may receive (SPEC 6.2). The others (started, per page) are
 * recorded only when the crawl's own webhook object wants them, since no one
 * else receives them.
 */
const ACCOUNT_EVENTS: ReadonlySet<string> = new Set(['crawl.completed', 'crawl.failed']);

function wantsOutbox(target: CrawlEventTarget, event: CrawlOutboxEvent): boolean {
  if (ACCOUNT_EVENTS.has(event)) return true;
  const events = target.requestWebhook?.events;
  return target.requestWebhook !== null && (events === undefined || events.length === 0 || events.includes(event));
}

/**
 * The one place crawl events are recorded, inside the transaction of the
 * state change that causes them: stream events get the crawl's next ids
 * (crawls.event_seq, so ids increase per crawl and a reconnect resumes
 * exactly), outbox events a row of event_outbox with the envelope payload
 * (SPEC 6.3) for webhook delivery.
 */
export async function recordCrawlEvents(db: Db, target: CrawlEventTarget, happenings: readonly CrawlHappening[]): Promise<void> {
  const stream = happenings.filter((h) => h.stream);
  const outbox = happenings.filter((h) => h.outbox && wantsOutbox(target, h.outbox));
  if (stream.length > 0) {
    await db.query(
      `WITH ids AS (UPDATE crawls SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq - $2 AS base)
       INSERT INTO crawl_events (crawl_id, seq, event, data)
       SELECT $1, ids.base + e.n, e.event, e.data
       FROM ids, unnest($3::text[], $4::jsonb[]) WITH ORDINALITY AS e(event, data, n)`,
      [target.id, stream.length, stream.map((h) => h.stream), stream.map((h) => JSON.stringify(h.data))],
    );
  }
  if (outbox.length > 0) {
    // The per-request target hears only the events it asked for; the account's subscriptions filter on their own.
    const requestWebhook = (event: string) => {
      const events = target.requestWebhook?.events;
      return target.requestWebhook && (!events || events.length === 0 || events.includes(event)) ? JSON.stringify(target.requestWebhook) : null;
    };
    await db.query(
      `WITH input AS (
         SELECT $1::uuid AS account_id, e.type, e.payload, e.request_webhook
         FROM unnest($2::text[], $3::jsonb[], $4::jsonb[]) AS e(type, payload, request_webhook)
       ), ${recordEventsCte('recorded', 'input')}
       SELECT count(*) FROM recorded`,
      [target.account_id, outbox.map((h) => h.outbox), outbox.map((h) => JSON.stringify(h.data)), outbox.map((h) => requestWebhook(h.outbox!))],
    );
  }
}
