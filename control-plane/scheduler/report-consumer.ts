import { fromBinary } from '@bufbuild/protobuf';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { ensureConsumer } from '../../common/jetstream.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { AttemptReportSchema, type AttemptReport } from '../../proto/gen/trawl/v1/work_pb.js';
import type { JobSignals } from '../jobs/job-signals.js';
import type { Db } from '../jobs/job-store.js';
import { createStartRecorder } from '../jobs/lifecycle.js';
import { createWriteBatcher } from '../jobs/write-batcher.js';
import type { Dispatcher } from './dispatcher.js';
import type { TierMemory } from '../scrape/tier-memory.js';
import { parkedInput } from './job-run.js';
import { applyAttemptReport } from './report-handler.js';

export interface ReportConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  pool: Db;
  dispatcher: Dispatcher;
  signals: JobSignals;
  log: Logger;
  tierMemory: Pick<TierMemory, 'remember'>;
  /** Reads a stored result (Redis), for a sync call in this process that waits on the job. */
  readResult(key: string): Promise<Uint8Array | null>;
  /** Drops what a job that ended had parked for its workers (a body, a session's cookies, the caller's proxy). */
  dropParkedInput(jobId: string): Promise<unknown>;
}

/** Reports applied at once; each holds a Postgres connection while it runs. */
const REPORT_CONCURRENCY = 8;

/**
 * Pulls attempt reports from the REPORTS stream with one durable consumer
 * shared by every control-plane replica, applies each, then acks. A report
 * whose application fails is redelivered after a short delay.
 */
export async function startReportConsumer(deps: ReportConsumerDeps): Promise<{ stop(): Promise<void> }> {
  const { names } = deps;
  await ensureConsumer(deps.jsm, names.reportsStream, {
    durable_name: names.reportsConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30e9,
    max_deliver: -1,
  });
  const consumer = await deps.js.consumers.get(names.reportsStream, names.reportsConsumer);
  const messages = await consumer.consume({ max_messages: 4 * REPORT_CONCURRENCY });
  const started = createStartRecorder(deps.pool);
  // Acks given in the same turn of the event loop leave in one write to NATS.
  const acks = createWriteBatcher<JsMsg>(async (done) => done.forEach((msg) => msg.ack()), { maxBatch: 256 });
  const reportDeps = { pool: deps.pool, started, log: deps.log, tierMemory: deps.tierMemory };

  const apply = async (msg: JsMsg, report: AttemptReport): Promise<void> => {
    try {
      // A call here waits to answer with the result: it is read while the job is settled, not after.
      const storedResult = report.ok && report.resultKey && deps.signals.watching(report.jobId) ? deps.readResult(report.resultKey) : undefined;
      storedResult?.catch(() => undefined);
      const effects = await applyAttemptReport(reportDeps, report);
      for (const item of effects.dispatch) await deps.dispatcher.publish(item.job, item.attempt);
      for (const { jobId, signal } of effects.signals) {
        const settledWith = storedResult && signal.kind === 'ended' && signal.record?.result_key === report.resultKey;
        deps.signals.announce(jobId, settledWith ? { ...signal, storedResult } : signal);
        // A failed drop leaves the input to expire shortly after the job's deadline.
        if (signal.kind === 'ended' && (!signal.record || parkedInput(signal.record))) deps.dropParkedInput(jobId).catch((err: unknown) => deps.log.warn({ err, jobId }, 'dropping parked input failed'));
      }
      // A lost ack only means the report comes again, and is applied as a no-op.
      acks.add(msg).catch((err: unknown) => deps.log.warn({ err }, 'acking an attempt report failed'));
    } catch (err) {
      deps.log.error({ err }, 'applying an attempt report failed; it will be redelivered');
      msg.nak(1000);
    }
  };

  // Reports of different jobs are applied concurrently; those of one job stay in arrival order.
  const perJob = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();
  const done = (async () => {
    for await (const msg of messages) {
      let report: AttemptReport;
      try {
        report = fromBinary(AttemptReportSchema, msg.data);
      } catch (err) {
        deps.log.error({ err }, 'an undecodable attempt report was dropped');
        msg.term('undecodable');
        continue;
      }
      while (running.size >= REPORT_CONCURRENCY) await Promise.race(running);
      const previous = perJob.get(report.jobId) ?? Promise.resolve();
      const task: Promise<void> = previous.then(() => apply(msg, report));
      perJob.set(report.jobId, task);
      running.add(task);
      void task.finally(() => {
        running.delete(task);
        if (perJob.get(report.jobId) === task) perJob.delete(report.jobId);
      });
    }
    await Promise.all(running);
  })();
  return {
    async stop() {
      await messages.close();
      await done;
      await started.drain();
      await acks.drain();
    },
  };
}
