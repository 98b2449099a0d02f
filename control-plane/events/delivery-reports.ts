import { fromBinary } from '@bufbuild/protobuf';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import { ensureConsumer } from '../../common/jetstream.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { WebhookDeliveryReportSchema, type WebhookDeliveryReport } from '../../proto/gen/trawl/v1/webhooks_pb.js';
import { recordAttempt, type AttemptResult } from './delivery-store.js';

export interface DeliveryReportDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  pool: pg.Pool;
  log: Logger;
  retryDelaysMs: readonly number[];
}

/** Reports recorded at once; each holds a Postgres connection while it runs. */
const REPORT_CONCURRENCY = 8;

export function attemptResult(report: WebhookDeliveryReport): AttemptResult {
  return {
    deliveryId: report.deliveryId,
    attempt: report.attempt,
    success: report.success,
    statusCode: report.statusCode ?? null,
    responseTimeMs: Number(report.responseTimeMs),
    error: report.error ?? null,
    startedAt: new Date(Number(report.startedUnixMs)),
  };
}

/**
 * Records the webhooks pool's attempt reports, pulled with one durable
 * consumer shared by every control plane; a report is acked once recorded,
 * and a redelivered one changes nothing.
 */
export async function startDeliveryReportConsumer(deps: DeliveryReportDeps): Promise<{ stop(): Promise<void> }> {
  const { names } = deps;
  await ensureConsumer(deps.jsm, names.webhookReportsStream, {
    durable_name: names.webhookReportsConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30e9,
    max_deliver: -1,
  });
  const consumer = await deps.js.consumers.get(names.webhookReportsStream, names.webhookReportsConsumer);
  const messages = await consumer.consume({ max_messages: 4 * REPORT_CONCURRENCY });
  const running = new Set<Promise<void>>();
  const done = (async () => {
    for await (const msg of messages) {
      let report: WebhookDeliveryReport;
      try {
        report = fromBinary(WebhookDeliveryReportSchema, msg.data);
      } catch (err) {
        deps.log.error({ err }, 'an undecodable delivery report was dropped');
        msg.term('undecodable');
        continue;
      }
      while (running.size >= REPORT_CONCURRENCY) await Promise.race(running);
      const task = recordAttempt(deps.pool, attemptResult(report), deps.retryDelaysMs).then(
        () => msg.ack(),
        (err: unknown) => {
          deps.log.error({ err }, 'recording a delivery attempt failed; it will be redelivered');
          msg.nak(1000);
        },
      );
      running.add(task);
      void task.finally(() => running.delete(task));
    }
    await Promise.all(running);
  })();
  return {
    async stop() {
      await messages.close();
      await done;
    },
  };
}
