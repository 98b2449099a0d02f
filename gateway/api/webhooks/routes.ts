import { z } from 'zod';
import { WEBHOOKS_PER_USER } from '../../../common/limits.js';
import type { Webhook as WebhookMessage, WebhookDelivery } from '../../../proto/gen/trawl/v1/webhooks_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import {
  CreateWebhookRequest,
  DeliveriesQuery,
  DeliveryList,
  ListWebhooksQuery,
  SigningSecret,
  TestWebhookRequest,
  TestWebhookResult,
  Webhook,
  WebhookIdParam,
  WebhookList,
} from './schemas.js';

/** A test waits for the receiver (10 s) and the pool's answer. */
const TIMEOUT_MS = 20_000;
const TAGS = ['Webhooks'];
const NO_WEBHOOK = "NOT_FOUND (no such webhook, or another user's: both answer alike)";

function presentWebhook(w: WebhookMessage) {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    is_active: w.isActive,
    failure_count: w.failureCount,
    ...(w.secret !== undefined ? { secret: w.secret } : {}),
    created_at: w.createdAt,
    last_success_at: w.lastSuccessAt ?? null,
  };
}

function presentDelivery(d: WebhookDelivery) {
  return {
    id: d.id,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    max_attempts: d.maxAttempts,
    response_status_code: d.responseStatusCode ?? null,
    response_time_ms: d.responseTimeMs === undefined ? null : Number(d.responseTimeMs),
    error_message: d.errorMessage ?? null,
    created_at: d.createdAt,
  };
}

/**
 * User webhooks (SPEC 4.9, session routes): subscriptions receive the
 * events of the user's own account and of the user's organizations'
 * accounts. Plus the account's secret that signs per-request deliveries.
 */
export function webhookRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const webhooks = deps.controlPlane.webhooks;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/user-webhooks',
      operationId: 'createUserWebhook',
      summary: 'Subscribe an HTTPS URL to account events',
      description: `The answer carries the signing secret, shown only here and at rotation. At most ${WEBHOOKS_PER_USER} webhooks per user.`,
      tags: TAGS,
      auth: 'session',
      request: { body: CreateWebhookRequest },
      responses: { 201: { description: 'The webhook with its secret', schema: Webhook } },
      errors: {
        400: 'URL_NOT_ALLOWED (the URL names or resolves to a private, loopback or link-local address)',
        409: `WEBHOOK_URL_EXISTS (the user has a webhook with this URL); WEBHOOK_LIMIT_REACHED (${WEBHOOKS_PER_USER} webhooks already)`,
      },
      handler: async ({ ctx, body }) => {
        ctx.status = 201;
        ctx.body = presentWebhook(await webhooks.createWebhook(body, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/user-webhooks',
      operationId: 'listUserWebhooks',
      summary: "The user's webhooks",
      tags: TAGS,
      auth: 'session',
      request: { query: ListWebhooksQuery },
      responses: { 200: { description: 'Webhooks, oldest first, without secrets', schema: WebhookList } },
      handler: async ({ ctx, query }) => {
        const res = await webhooks.listWebhooks({ includeInactive: query.include_inactive }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { webhooks: res.webhooks.map(presentWebhook), total: res.total };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/user-webhooks/{webhook_id}',
      operationId: 'deleteUserWebhook',
      summary: 'Remove a webhook and its delivery history',
      tags: TAGS,
      auth: 'session',
      request: { params: WebhookIdParam },
      responses: { 204: { description: 'Removed; no body', schema: z.null() } },
      errors: { 404: NO_WEBHOOK },
      handler: async ({ ctx, params }) => {
        await webhooks.deleteWebhook({ webhookId: params.webhook_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.status = 204;
        ctx.body = null;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/user-webhooks/{webhook_id}/test',
      operationId: 'testUserWebhook',
      summary: 'Send a signed sample event now',
      description:
        'Posts a sample of the event (data.test is true) to the URL, signed with the webhook secret, once, and answers how it went. A test is not a delivery: it is not listed and does not count towards disabling.',
      tags: TAGS,
      auth: 'session',
      request: { params: WebhookIdParam, body: TestWebhookRequest },
      responses: { 200: { description: 'How the receiver answered', schema: TestWebhookResult } },
      errors: { 404: NO_WEBHOOK },
      handler: async ({ ctx, params, body }) => {
        const res = await webhooks.testWebhook({ webhookId: params.webhook_id, eventType: body.event_type }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { success: res.success, status_code: res.statusCode ?? null, response_time_ms: Number(res.responseTimeMs), error: res.error ?? null };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/user-webhooks/{webhook_id}/rotate-secret',
      operationId: 'rotateUserWebhookSecret',
      summary: "Replace a webhook's signing secret",
      description: 'Deliveries signed from now on use the new secret; the old one stops at once.',
      tags: TAGS,
      auth: 'session',
      request: { params: WebhookIdParam },
      responses: { 200: { description: 'The webhook with its new secret', schema: Webhook } },
      errors: { 404: NO_WEBHOOK },
      handler: async ({ ctx, params }) => {
        ctx.body = presentWebhook(await webhooks.rotateSecret({ webhookId: params.webhook_id }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/user-webhooks/{webhook_id}/enable',
      operationId: 'enableUserWebhook',
      summary: 'Make a disabled webhook active again',
      description: 'A webhook is disabled after 5 failed attempts in a row; this makes it active with failure_count 0. Deliveries abandoned while it was disabled are not sent again.',
      tags: TAGS,
      auth: 'session',
      request: { params: WebhookIdParam },
      responses: { 200: { description: 'The webhook', schema: Webhook } },
      errors: { 404: NO_WEBHOOK },
      handler: async ({ ctx, params }) => {
        ctx.body = presentWebhook(await webhooks.enableWebhook({ webhookId: params.webhook_id }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/user-webhooks/{webhook_id}/deliveries',
      operationId: 'listUserWebhookDeliveries',
      summary: "A webhook's deliveries",
      tags: TAGS,
      auth: 'session',
      request: { params: WebhookIdParam, query: DeliveriesQuery },
      responses: { 200: { description: 'Deliveries, newest first', schema: DeliveryList } },
      errors: { 404: NO_WEBHOOK },
      handler: async ({ ctx, params, query }) => {
        const res = await webhooks.listDeliveries({ webhookId: params.webhook_id, limit: query.limit, status: query.status }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { deliveries: res.deliveries.map(presentDelivery), total: res.total };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhook-signing-secret',
      operationId: 'getRequestSigningSecret',
      summary: "The account's secret for per-request webhook deliveries",
      description:
        'Deliveries to the webhook_url of a scrape, batch, crawl or SERP batch are signed (X-Service-Signature) with this secret of the account that made the request; it is created on first use. With a session token and X-Organization-Id, the organization account\'s.',
      tags: TAGS,
      auth: 'either',
      responses: { 200: { description: 'The secret', schema: SigningSecret } },
      handler: async ({ ctx }) => {
        ctx.body = { secret: (await webhooks.getRequestSigningSecret({ rotate: false }, callOptions(ctx, TIMEOUT_MS))).secret };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhook-signing-secret/rotate',
      operationId: 'rotateRequestSigningSecret',
      summary: "Replace the account's per-request signing secret",
      description: 'Attempts signed from now on (retries included) use the new secret.',
      tags: TAGS,
      auth: 'session',
      responses: { 200: { description: 'The new secret', schema: SigningSecret } },
      handler: async ({ ctx }) => {
        ctx.body = { secret: (await webhooks.getRequestSigningSecret({ rotate: true }, callOptions(ctx, TIMEOUT_MS))).secret };
      },
    }),
  ];
}
