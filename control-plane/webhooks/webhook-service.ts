import { create, fromBinary, toBinary, type DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { WEBHOOK_DELIVERIES_DEFAULT_LIMIT, WEBHOOK_TIMEOUT_MS } from '../../common/limits.js';
import type { NatsNames } from '../../common/nats-names.js';
import type { GuardOptions } from '../../common/ssrf-guard.js';
import {
  WebhookDeliveryReportSchema,
  WebhookDeliveryTaskSchema,
  WebhookService,
} from '../../proto/gen/trawl/v1/webhooks_pb.js';
import { callerOf, sessionCallerOf, type CallAuth } from '../accounts/caller.js';
import { deliveryHeaders } from '../events/delivery-headers.js';
import { accountWebhookSecret } from '../events/delivery-store.js';
import { DEFAULT_TEST_EVENT, isAccountEvent } from '../../common/event-types.js';
import { newWebhookSecret, openSecret, sealSecret } from '../events/signing.js';
import {
  deleteSubscription,
  enableSubscription,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  loadSubscription,
  rotateSubscriptionSecret,
  type DeliveryRecord,
  type SubscriptionRecord,
} from './subscription-store.js';
import { testEventBody } from './test-event.js';
import { checkWebhookTarget } from './webhook-target.js';

export interface WebhookServiceDeps {
  pool: pg.Pool;
  nc: NatsConnection;
  names: NatsNames;
  guard: GuardOptions;
  masterKeyHex: string;
}

const m = WebhookService.method;

/** The credential each method takes (methodAuth in control-plane/main.ts). */
export const WEBHOOK_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = [
  [m.createWebhook, 'session'],
  [m.listWebhooks, 'session'],
  [m.testWebhook, 'session'],
  [m.rotateSecret, 'session'],
  [m.listDeliveries, 'session'],
  [m.enableWebhook, 'session'],
  [m.deleteWebhook, 'session'],
  [m.getRequestSigningSecret, 'either'],
];

/** The subscription as answered; the secret only when `withSecret` (creation and rotation). */
function presentSubscription(s: SubscriptionRecord, secret?: string) {
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    events: s.events,
    isActive: s.is_active,
    failureCount: s.failure_count,
    secret,
    createdAt: s.created_at.toISOString(),
    lastSuccessAt: s.last_success_at?.toISOString(),
  };
}

function presentDelivery(d: DeliveryRecord) {
  return {
    id: d.id,
    eventType: d.event_type,
    status: d.status,
    attemptCount: d.attempt_count,
    maxAttempts: d.max_attempts,
    responseStatusCode: d.response_status_code ?? undefined,
    responseTimeMs: d.response_time_ms === null ? undefined : BigInt(d.response_time_ms),
    errorMessage: d.error_message ?? undefined,
    createdAt: d.created_at.toISOString(),
  };
}

function refuseUnknownEvents(events: readonly string[]): void {
  const unknown = events.filter((e) => !isAccountEvent(e));
  if (unknown.length > 0) throw new TrawlError('VALIDATION_ERROR', `Unknown event types: ${unknown.join(', ')}`, { field: 'events', unknown });
}

/**
 * User webhooks (SPEC 4.9): a user's subscriptions receive the events of the
 * user's personal account and of the user's organizations' accounts.
 */
export function createWebhookService(deps: WebhookServiceDeps): ServiceImpl<typeof WebhookService> {
  const user = (ctx: HandlerContext) => sessionCallerOf(ctx).userId;
  return {
    async createWebhook(req, ctx) {
      const userId = user(ctx);
      refuseUnknownEvents(req.events);
      await checkWebhookTarget(req.url, deps.guard);
      const secret = newWebhookSecret();
      const record = await insertSubscription(deps.pool, {
        userId, name: req.name.trim(), url: req.url, events: [...new Set(req.events)], secretSealed: sealSecret(secret, deps.masterKeyHex),
      });
      return presentSubscription(record, secret);
    },
    async listWebhooks(req, ctx) {
      const records = await listSubscriptions(deps.pool, user(ctx), req.includeInactive);
      return { webhooks: records.map((r) => presentSubscription(r)), total: records.length };
    },
    async testWebhook(req, ctx) {
      const subscription = await loadSubscription(deps.pool, user(ctx), req.webhookId);
      const type = req.eventType || DEFAULT_TEST_EVENT;
      refuseUnknownEvents([type]);
      const body = testEventBody(type);
      const deliveryId = crypto.randomUUID();
      const task = create(WebhookDeliveryTaskSchema, {
        deliveryId,
        attempt: 1,
        url: subscription.url,
        body: Buffer.from(body),
        headers: deliveryHeaders({ eventType: type, deliveryId, body, secret: openSecret(subscription.secret_sealed, deps.masterKeyHex), target: null, nowSeconds: Math.floor(Date.now() / 1000) }),
      });
      let answer;
      try {
        answer = await deps.nc.request(deps.names.webhookTestSubject, toBinary(WebhookDeliveryTaskSchema, task), { timeout: WEBHOOK_TIMEOUT_MS + 5_000 });
      } catch {
        throw new TrawlError('SERVICE_UNAVAILABLE', 'No webhook worker answered; try again shortly');
      }
      const report = fromBinary(WebhookDeliveryReportSchema, answer.data);
      return { success: report.success, statusCode: report.statusCode, responseTimeMs: report.responseTimeMs, error: report.error };
    },
    async rotateSecret(req, ctx) {
      const secret = newWebhookSecret();
      return presentSubscription(await rotateSubscriptionSecret(deps.pool, user(ctx), req.webhookId, sealSecret(secret, deps.masterKeyHex)), secret);
    },
    async listDeliveries(req, ctx) {
      const subscription = await loadSubscription(deps.pool, user(ctx), req.webhookId);
      const { deliveries, total } = await listDeliveries(deps.pool, subscription.id, {
        limit: req.limit || WEBHOOK_DELIVERIES_DEFAULT_LIMIT,
        status: req.status ?? null,
      });
      return { deliveries: deliveries.map(presentDelivery), total };
    },
    async enableWebhook(req, ctx) {
      return presentSubscription(await enableSubscription(deps.pool, user(ctx), req.webhookId));
    },
    async deleteWebhook(req, ctx) {
      await deleteSubscription(deps.pool, user(ctx), req.webhookId);
      return {};
    },
    async getRequestSigningSecret(req, ctx) {
      const caller = callerOf(ctx);
      if (req.rotate && caller.credential !== 'session') {
        throw new TrawlError('FORBIDDEN', 'Rotating the signing secret takes a session token');
      }
      const sealed = await accountWebhookSecret(deps.pool, caller.accountId, sealSecret(newWebhookSecret(), deps.masterKeyHex), req.rotate);
      return { secret: openSecret(sealed, deps.masterKeyHex) };
    },
  };
}
