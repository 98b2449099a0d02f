import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Redis } from 'ioredis';
import type { NatsNames } from '../../common/nats-names.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import {
  WebhookDeliveryReportSchema,
  WebhookDeliveryTaskSchema,
  type WebhookDeliveryReport,
  type WebhookDeliveryTask,
} from '../../proto/gen/trawl/v1/webhooks_pb.js';
import type { PoolHandler } from '../runtime/pool-runtime.js';
import { sendDelivery, type SendDeps } from './send-delivery.js';

/** How long a sent attempt is remembered, so a redelivered task is not sent again: longer than any redelivery. */
const REPORTED_TTL_SECONDS = 24 * 3600;

export interface DeliveryHandlerDeps {
  send: SendDeps;
  js: JetStreamClient;
  names: NatsNames;
  redis: Redis;
  keys: RedisKeys;
  workerId: string;
}

const messageId = (task: WebhookDeliveryTask) => `${task.deliveryId}:${task.attempt}`;

/** Sends one attempt and answers its report. */
export async function attemptDelivery(deps: Pick<DeliveryHandlerDeps, 'send' | 'workerId'>, task: WebhookDeliveryTask): Promise<WebhookDeliveryReport> {
  const startedUnixMs = BigInt(Date.now());
  const outcome = await sendDelivery(deps.send, { url: task.url, body: task.body, headers: task.headers });
  return create(WebhookDeliveryReportSchema, {
    deliveryId: task.deliveryId,
    attempt: task.attempt,
    success: outcome.success,
    statusCode: outcome.statusCode ?? undefined,
    responseTimeMs: BigInt(outcome.responseTimeMs),
    error: outcome.error ?? undefined,
    startedUnixMs,
    workerId: deps.workerId,
  });
}

/**
 * The webhooks pool's task handler: one attempt of one delivery per task.
 * The report is published (message id `<delivery>:<attempt>`, so a second
 * copy is dropped) and then remembered in Redis; a task redelivered after
 * that (its ack was lost) publishes the remembered report again instead of
 * sending the request twice. A task that keeps failing is reported as a
 * failed attempt.
 */
export function createDeliveryHandler(deps: DeliveryHandlerDeps): PoolHandler<WebhookDeliveryTask> {
  const publish = async (report: WebhookDeliveryReport) => {
    const bytes = toBinary(WebhookDeliveryReportSchema, report);
    const id = `${report.deliveryId}:${report.attempt}`;
    await deps.js.publish(deps.names.webhookReportsSubject, bytes, { msgID: id });
    await deps.redis.set(deps.keys.webhookAttemptReported(id), Buffer.from(bytes), 'EX', REPORTED_TTL_SECONDS);
  };
  return {
    decode: (data) => fromBinary(WebhookDeliveryTaskSchema, data),
    async handle(task) {
      const remembered = await deps.redis.getBuffer(deps.keys.webhookAttemptReported(messageId(task)));
      if (remembered) {
        await deps.js.publish(deps.names.webhookReportsSubject, remembered, { msgID: messageId(task) });
        return;
      }
      await publish(await attemptDelivery(deps, task));
    },
    async exhausted(task, err) {
      await publish(
        create(WebhookDeliveryReportSchema, {
          deliveryId: task.deliveryId,
          attempt: task.attempt,
          success: false,
          responseTimeMs: 0n,
          error: `The attempt could not be made: ${(err as Error).message ?? String(err)}`,
          startedUnixMs: BigInt(Date.now()),
          workerId: deps.workerId,
        }),
      );
    },
  };
}
