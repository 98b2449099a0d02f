import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { WebhookDeliveryReportSchema, type WebhookDeliveryReport } from '../../proto/gen/trawl/v1/webhooks_pb.js';
import { consumeReportStream } from '../report-stream.js';
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
  return consumeReportStream(deps, {
    stream: deps.names.webhookReportsStream,
    consumer: deps.names.webhookReportsConsumer,
    schema: WebhookDeliveryReportSchema,
    what: 'delivery report',
    concurrency: REPORT_CONCURRENCY,
    async apply(report) {
      await recordAttempt(deps.pool, attemptResult(report), deps.retryDelaysMs);
    },
  });
}
