import type { ClickHouseClient } from '@clickhouse/client';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { ensureConsumer } from '../common/jetstream.js';
import type { Logger } from '../common/logger.js';
import type { NatsNames } from '../common/nats-names.js';
import { decodeRequestLogBatch, type RequestLogRecord } from '../common/request-log-codec.js';
import { toRow, type RequestLogRow } from './request-log-row.js';

export interface SinkOptions {
  database: string;
  /** An insert goes out once this many rows are waiting... */
  batchRows: number;
  /** ...or this long after the last one. */
  flushIntervalMs: number;
  /** Unacknowledged LOGS messages (each a batch of records) the consumer may hold. */
  maxPendingMessages: number;
}

/**
 * Batch-inserts request logs. Each LOGS message is a RequestLogBatch from a
 * gateway; messages are held unacked until the insert that carries all of
 * their rows succeeds, so a failed insert or a crash loses nothing (the
 * messages are redelivered).
 */
export async function startRequestLogSink(
  deps: { js: JetStreamClient; jsm: JetStreamManager; names: NatsNames; clickhouse: ClickHouseClient; log: Logger },
  opts: SinkOptions,
): Promise<{ stop(): Promise<void> }> {
  const { names } = deps;
  await ensureConsumer(
    deps.jsm,
    names.logsStream,
    {
      durable_name: names.logsConsumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 60e9,
      max_ack_pending: opts.maxPendingMessages,
    },
    { max_ack_pending: opts.maxPendingMessages },
  );
  const consumer = await deps.js.consumers.get(names.logsStream, names.logsConsumer);
  let messages: JsMsg[] = [];
  let rows: RequestLogRow[] = [];
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (messages.length === 0) return flushing;
    const batchMessages = messages;
    const batchRows = rows;
    messages = [];
    rows = [];
    flushing = flushing.then(async () => {
      try {
        if (batchRows.length > 0) {
          await deps.clickhouse.insert({ table: `${opts.database}.request_logs`, values: batchRows, format: 'JSONEachRow' });
        }
        for (const msg of batchMessages) msg.ack();
      } catch (err) {
        deps.log.error({ err, rows: batchRows.length }, 'inserting request logs failed; they will be redelivered');
        for (const msg of batchMessages) msg.nak(2_000);
      }
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), opts.flushIntervalMs);
  const stream = await consumer.consume({ max_messages: opts.maxPendingMessages });
  const loop = (async () => {
    for await (const msg of stream) {
      let batch: RequestLogRecord[];
      try {
        batch = decodeRequestLogBatch(msg.data);
      } catch (err) {
        deps.log.error({ err }, 'dropping an undecodable request-log batch');
        msg.term();
        continue;
      }
      messages.push(msg);
      for (const record of batch) rows.push(toRow(record));
      if (rows.length >= opts.batchRows) void flush();
    }
  })();

  return {
    async stop() {
      clearInterval(timer);
      await stream.close();
      await loop;
      await flush();
    },
  };
}
