import { WEBHOOK_USER_AGENT } from '../../common/limits.js';
import type { RequestWebhook } from './record-event.js';
import { serviceSignature, timestampedSignature } from './signing.js';

/** Headers a per-request target's own `headers` may not replace. */
const RESERVED = new Set(['content-type', 'user-agent', 'x-service-signature', 'x-service-event', 'x-service-delivery', 'x-webhook-signature', 'x-webhook-timestamp', 'host', 'content-length']);

/**
 * The request headers of a delivery (SPEC 6.3): X-Service-Signature over the
 * exact body, the event type, the delivery id (the same on every attempt),
 * JSON, the service's User-Agent. A per-request target with its own secret
 * also gets X-Webhook-Timestamp and X-Webhook-Signature (signing.ts), and its
 * own headers where they do not replace these.
 */
export function deliveryHeaders(input: {
  eventType: string;
  deliveryId: string;
  body: string;
  secret: string;
  target: RequestWebhook | null;
  nowSeconds: number;
}): Record<string, string> {
  const own = Object.entries(input.target?.headers ?? {}).filter(([name]) => !RESERVED.has(name.toLowerCase()));
  const headers: Record<string, string> = {
    ...Object.fromEntries(own),
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Signature': serviceSignature(input.secret, input.body),
    'X-Service-Event': input.eventType,
    'X-Service-Delivery': input.deliveryId,
  };
  if (input.target?.secret) {
    headers['X-Webhook-Timestamp'] = String(input.nowSeconds);
    headers['X-Webhook-Signature'] = timestampedSignature(input.target.secret, input.nowSeconds, input.body);
  }
  return headers;
}
