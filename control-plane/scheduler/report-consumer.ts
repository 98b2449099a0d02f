import { fromBinary } from '@bufbuild/protobuf';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { AttemptReportSchema } from '../../proto/gen/trawl/v1/work_pb.js';
import { publishAttempt } from './dispatcher.js';
import { announceJobSignal } from './job-waiters.js';
import { applyAttemptReport } from './report-handler.js';

export interface ReportConsumerDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  pool: pg.Pool;
  log: Logger;
}

/**
 * Pulls attempt reports from the REPORTS stream with one durable consumer
 * shared by every control-plane replica, applies each, then acks. A report
 * whose application fails is redelivered after a short delay.
 */
export async function startReportConsumer(deps: ReportConsumerDeps): Promise<{ stop(): Promise<void> }> {
  const { names } = deps;
  try {
    await deps.jsm.consumers.info(names.reportsStream, names.reportsConsumer);
  } catch {
    await deps.jsm.consumers.add(names.reportsStream, {
      durable_name: names.reportsConsumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 30e9,
      max_deliver: -1,
    });
  }
  const consumer = await deps.js.consumers.get(names.reportsStream, names.reportsConsumer);
  const messages = await consumer.consume({ max_messages: 64 });
  const done = (async () => {
    for await (const msg of messages) {
      try {
        const report = fromBinary(AttemptReportSchema, msg.data);
        const effects = await applyAttemptReport(deps, report);
        for (const item of effects.dispatch) await publishAttempt(deps, item.job, item.attempt);
        for (const { jobId, signal } of effects.signals) announceJobSignal(deps.nc, names, jobId, signal);
        msg.ack();
      } catch (err) {
        deps.log.error({ err }, 'applying an attempt report failed; it will be redelivered');
        msg.nak(1000);
      }
    }
  })();
  return {
    async stop() {
      await messages.close();
      await done;
    },
  };
}
