import { create, toBinary } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { WebhookDeliveryTaskSchema, type WebhookDeliveryTask } from '../../proto/gen/trawl/v1/webhooks_pb.js';
import { abandonDeliveries, accountWebhookSecret, leaseDueDeliveries, type DueDelivery } from './delivery-store.js';
import { deliveryHeaders } from './delivery-headers.js';
import { polledPasses } from './serial-passes.js';
import { newWebhookSecret, openSecret, sealSecret } from './signing.js';

export interface DeliveryDispatcherDeps {
  pool: pg.Pool;
  js: JetStreamClient;
  names: NatsNames;
  log: Logger;
  /** Opens the sealed signing secrets. */
  masterKeyHex: string;
  /** Seconds since the epoch, for X-Webhook-Timestamp. */
  now?: () => number;
}

/** Deliveries leased per pass. */
const DISPATCH_BATCH = 500;
/** An attempt's task not reported within this is sent again (a lost publish); JetStream drops it while the first is still queued. */
const LEASE_MS = 60_000;
/** How often due retries are looked for. */
const POLL_MS = 250;

/** The message id of an attempt's task and report. */
export const attemptMessageId = (deliveryId: string, attempt: number) => `${deliveryId}:${attempt}`;

/** The signed task of a delivery's next attempt. */
export function deliveryTask(delivery: DueDelivery, secret: string, nowSeconds: number): WebhookDeliveryTask {
  const attempt = delivery.attempt_count + 1;
  return create(WebhookDeliveryTaskSchema, {
    deliveryId: delivery.id,
    attempt,
    url: delivery.url,
    body: Buffer.from(delivery.body),
    headers: deliveryHeaders({
      eventType: delivery.event_type,
      deliveryId: delivery.id,
      body: delivery.body,
      secret,
      // The per-request target's own settings; a subscription has none.
      target: delivery.subscription_id ? null : delivery.request_webhook,
      nowSeconds,
    }),
  });
}

/**
 * Sends each due attempt to the webhooks pool on `work.webhooks`, signed
 * with the subscription's secret, or the account's for a per-request
 * target. A disabled subscription's deliveries end as failed instead.
 */
export async function dispatchDueOnce(deps: DeliveryDispatcherDeps): Promise<number> {
  const due = await leaseDueDeliveries(deps.pool, DISPATCH_BATCH, LEASE_MS);
  const disabled = due.filter((d) => d.subscription_id !== null && d.subscription_active === false);
  if (disabled.length > 0) await abandonDeliveries(deps.pool, disabled.map((d) => d.id), 'The subscription is disabled');
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const sendable = due.filter((d) => !disabled.includes(d));
  await Promise.all(
    sendable.map(async (d) => {
      const sealed =
        d.subscription_secret_sealed ??
        d.account_secret_sealed ??
        (await accountWebhookSecret(deps.pool, d.account_id, sealSecret(newWebhookSecret(), deps.masterKeyHex), false));
      const secret = openSecret(sealed, deps.masterKeyHex);
      const task = deliveryTask(d, secret, now());
      try {
        await deps.js.publish(deps.names.workSubject('webhooks'), toBinary(WebhookDeliveryTaskSchema, task), {
          msgID: attemptMessageId(d.id, task.attempt),
        });
      } catch (err) {
        deps.log.warn({ err, deliveryId: d.id }, 'publishing a delivery failed; it is sent again when its lease passes');
      }
    }),
  );
  return sendable.length;
}

export function startDeliveryDispatcher(deps: DeliveryDispatcherDeps): { wake(): void; stop(): Promise<void> } {
  return polledPasses(
    async () => (await dispatchDueOnce(deps)) >= DISPATCH_BATCH,
    (err) => deps.log.error({ err }, 'dispatching webhook deliveries failed; the next pass retries'),
    POLL_MS,
  );
}
