import { z } from 'zod';
import { WEBHOOK_DELIVERIES_DEFAULT_LIMIT, WEBHOOK_DELIVERIES_MAX_LIMIT, WEBHOOK_NAME_MAX_CHARS, WEBHOOKS_PER_USER } from '../../../common/limits.js';
import { ACCOUNT_EVENTS } from '../../../common/event-types.js';
import { HttpsUrl } from '../shared/fields.js';

export const AccountEventType = z.enum(ACCOUNT_EVENTS).meta({ id: 'AccountEventType', description: 'An event a subscription can receive (SPEC 6.2).' });

export const CreateWebhookRequest = z
  .object({
    name: z.string().min(1).max(WEBHOOK_NAME_MAX_CHARS).refine((s) => s.trim() !== '', 'must not be blank'),
    url: HttpsUrl.meta({ description: 'HTTPS only; a private, loopback or link-local address (after DNS) is refused.' }),
    events: z.array(AccountEventType).min(1).max(ACCOUNT_EVENTS.length),
  })
  .strict()
  .meta({ id: 'CreateWebhookRequest', description: `At most ${WEBHOOKS_PER_USER} webhooks per user, one per URL.` });

export const Webhook = z
  .object({
    id: z.uuid(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    is_active: z.boolean().meta({ description: 'False once disabled after 5 failed attempts in a row; POST /enable makes it active again.' }),
    failure_count: z.number().int().meta({ description: 'Failed attempts in a row; a success resets it.' }),
    secret: z.string().optional().meta({ description: 'whsec_…; only in the answers of creation and rotation.' }),
    created_at: z.string(),
    last_success_at: z.string().nullable(),
  })
  .meta({ id: 'Webhook' });

export const WebhookList = z.object({ webhooks: z.array(Webhook), total: z.number().int() }).meta({ id: 'WebhookList' });

export const ListWebhooksQuery = z.object({
  include_inactive: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: 'Also list disabled webhooks.' }),
}).strict();

export const WebhookIdParam = z.object({ webhook_id: z.uuid().meta({ description: 'The webhook.' }) });

export const TestWebhookRequest = z
  .object({ event_type: AccountEventType.default('job.completed') })
  .strict()
  .meta({ id: 'TestWebhookRequest' });

export const TestWebhookResult = z
  .object({
    success: z.boolean(),
    status_code: z.number().int().nullable(),
    response_time_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: 'TestWebhookResult' });

export const DeliveryStatus = z.enum(['pending', 'success', 'failed', 'retrying']);

export const DeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(WEBHOOK_DELIVERIES_MAX_LIMIT).default(WEBHOOK_DELIVERIES_DEFAULT_LIMIT).meta({ description: 'Newest first.' }),
  status: DeliveryStatus.optional(),
}).strict();

export const Delivery = z
  .object({
    id: z.uuid().meta({ description: 'The X-Service-Delivery header of every attempt.' }),
    event_type: z.string(),
    status: DeliveryStatus,
    attempt_count: z.number().int(),
    max_attempts: z.number().int(),
    response_status_code: z.number().int().nullable(),
    response_time_ms: z.number().int().nullable(),
    error_message: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryList = z.object({ deliveries: z.array(Delivery), total: z.number().int() }).meta({ id: 'WebhookDeliveryList' });

export const SigningSecret = z
  .object({ secret: z.string().meta({ description: 'whsec_…: signs deliveries to the webhook_url of requests made on this account.' }) })
  .meta({ id: 'RequestSigningSecret' });
