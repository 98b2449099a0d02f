import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { ensureConsumer } from '../common/jetstream.js';
import type { Logger } from '../common/logger.js';

/** Where a stream of worker reports is read from, how many are applied at once, and how each is applied. */
export interface ReportStream<Desc extends DescMessage> {
  stream: string;
  consumer: string;
  schema: Desc;
  /** What a report is, for log lines ("crawl report"). */
  what: string;
  /** Reports applied at once; each usually holds a Postgres connection while it runs. */
  concurrency: number;
  /** Applies one report; it is acked once this resolves, and redelivered after a second when it throws. */
  apply(report: MessageShape<Desc>): Promise<void>;
}

/**
 * Pulls a report stream with one durable consumer shared by every
 * control-plane replica: each report is decoded (an undecodable one is
 * dropped), applied with bounded concurrency, and acked; applying one twice
 * must change nothing, since a failure or a lost ack redelivers it.
 */
export async function consumeReportStream<Desc extends DescMessage>(
  deps: { js: JetStreamClient; jsm: JetStreamManager; log: Logger },
  spec: ReportStream<Desc>,
): Promise<{ stop(): Promise<void> }> {
  await ensureConsumer(deps.jsm, spec.stream, {
    durable_name: spec.consumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30e9,
    max_deliver: -1,
  });
  const consumer = await deps.js.consumers.get(spec.stream, spec.consumer);
  const messages = await consumer.consume({ max_messages: 4 * spec.concurrency });
  const running = new Set<Promise<void>>();
  const done = (async () => {
    for await (const msg of messages) {
      let report: MessageShape<Desc>;
      try {
        report = fromBinary(spec.schema, msg.data);
      } catch (err) {
        deps.log.error({ err }, `an undecodable ${spec.what} was dropped`);
        msg.term('undecodable');
        continue;
      }
      while (running.size >= spec.concurrency) await Promise.race(running);
      const task = spec.apply(report).then(
        () => void msg.ack(),
        (err: unknown) => {
          deps.log.error({ err }, `applying a ${spec.what} failed; it will be redelivered`);
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
