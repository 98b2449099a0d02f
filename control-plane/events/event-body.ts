import { fromBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { WEBHOOK_MAX_BODY_BYTES } from '../../common/limits.js';
import { ScrapeResultSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { JOB_EVENTS } from '../../common/event-types.js';

/** An event as recorded in event_outbox. */
export interface OutboxEvent {
  id: string;
  account_id: string;
  type: string;
  payload: Record<string, unknown>;
  created_at: Date;
  /** job.completed: where its job's result is stored (null when the job has none). */
  result_key?: string | null;
}

/** A stored result (a serialized ScrapeResult) by its key, or undefined when it is gone. */
export type LoadStoredResult = (resultKey: string) => Promise<Uint8Array | undefined>;

interface ResultFields {
  status_code?: unknown;
  content: JsonValue;
  title: string | null;
  metadata: JsonValue;
  content_omitted?: boolean;
}

/**
 * A stored result as a scrape result, or undefined for one that is not
 * (a map's, or bytes that do not decode): such an event goes out without
 * content rather than holding up every event behind it.
 */
function scrapeResultOf(stored: Uint8Array) {
  try {
    return fromBinary(ScrapeResultSchema, stored);
  } catch {
    return undefined;
  }
}

/**
 * The JSON every receiver of the event gets (SPEC 6.3): {event, timestamp,
 * data}, rendered once so each target and attempt sends the same bytes.
 * job.completed gains its result's content, title and metadata. A body over
 * 1 MB (SPEC 8.4) first drops job.completed's content (content null,
 * content_omitted true: the job is still polled in full), then any event's
 * data, keeping only data_omitted and the ids it named.
 */
export async function renderEventBody(event: OutboxEvent, loadResult: LoadStoredResult): Promise<string> {
  const data: Record<string, unknown> = { ...event.payload };
  const envelope = { event: event.type, timestamp: event.created_at.toISOString(), data };
  if (event.type === JOB_EVENTS.completed && event.result_key) {
    const stored = await loadResult(event.result_key);
    const result = stored ? scrapeResultOf(stored) : undefined;
    if (result) {
      data['result'] = {
        ...(data['result'] as object),
        content: result.content ? toJson(ValueSchema, result.content) : null,
        title: result.title || null,
        metadata: result.metadata ?? null,
      } satisfies ResultFields;
    }
  }
  let body = JSON.stringify(envelope);
  if (Buffer.byteLength(body) <= WEBHOOK_MAX_BODY_BYTES) return body;
  const result = data['result'] as ResultFields | undefined;
  if (result && typeof result === 'object') {
    data['result'] = { ...result, content: null, content_omitted: true };
    body = JSON.stringify(envelope);
    if (Buffer.byteLength(body) <= WEBHOOK_MAX_BODY_BYTES) return body;
  }
  const ids = Object.fromEntries(Object.entries(event.payload).filter(([k, v]) => k.endsWith('_id') && typeof v === 'string' && v.length < 200));
  return JSON.stringify({ ...envelope, data: { ...ids, data_omitted: true } });
}
