import { fromBinary } from '@bufbuild/protobuf';
import type { ClickHouseClient } from '@clickhouse/client';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../common/logger.js';
import type { NatsNames } from '../common/nats-names.js';
import { RequestLogSchema } from '../proto/gen/trawl/v1/request_log_pb.js';
import { toRow, type RequestLogRow } from './request-log-row.js';

export interface SinkOptions {
  database: string;
  batchSize: number;
  flushIntervalMs: number;
}

/**
 * Batch-inserts request logs: messages are held unacked until the insert
 * that carries them succeeds, so a failed insert or a crash loses nothing
 * (the batch is redelivered).
 */
export async function startRequestLogSink(
  deps: { js: JetStreamClient; jsm: JetStreamManager; names: NatsNames; clickhouse: ClickHouseClient; log: Logger },
  opts: SinkOptions,
): Promise<{ stop(): Promise<void> }> {
  const { names } = deps;
  try {
    await deps.jsm.consumers.info(names.logsStream, names.logsConsumer);
  } catch {
    await deps.jsm.consumers.add(names.logsStream, {
      durable_name: names.logsConsumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 60e9,
      max_ack_pending: opts.batchSize * 4,
    });
  }
  const consumer = await deps.js.consumers.get(names.logsStream, names.logsConsumer);
  let pending: Array<{ msg: JsMsg; row: RequestLogRow }> = [];
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (pending.length === 0) return flushing;
    const batch = pending;
    pending = [];
    flushing = flushing.then(async () => {
      try {
        await deps.clickhouse.insert({ table: `${opts.database}.request_logs`, values: batch.map((b) => b.row), format: 'JSONEachRow' });
        for (const b of batch) b.msg.ack();
      } catch (err) {
        deps.log.error({ err, rows: batch.length }, 'inserting request logs failed; they will be redelivered');
        for (const b of batch) b.msg.nak(2_000);
      }
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), opts.flushIntervalMs);
  const messages = await consumer.consume({ max_messages: opts.batchSize * 2 });
  const loop = (async () => {
    for await (const msg of messages) {
      try {
        pending.push({ msg, row: toRow(fromBinary(RequestLogSchema, msg.data)) });
      } catch (err) {
        deps.log.error({ err }, 'dropping an undecodable request log');
        msg.term();
        continue;
      }
      if (pending.length >= opts.batchSize) void flush();
    }
  })();

  return {
    async stop() {
      clearInterval(timer);
      await messages.close();
      await loop;
      await flush();
    },
  };
}
