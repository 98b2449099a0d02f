import { create, toBinary } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsNames } from '../../common/nats-names.js';
import { AttemptPhase, AttemptReportSchema, type AttemptReport } from '../../proto/gen/trawl/v1/work_pb.js';

export type ReportFields = Omit<Partial<AttemptReport>, '$typeName' | '$unknown'> & {
  jobId: string;
  attemptId: string;
  phase: AttemptPhase;
};

/** What a pool adds to a finished report: status code, sizes, timings, escalation. */
export type ReportExtra = Omit<Partial<ReportFields>, 'jobId' | 'attemptId' | 'phase' | 'tier' | 'deliveryCount' | 'ok' | 'errorCode' | 'errorMessage' | 'resultKey'>;

/**
 * Publishes attempt reports and resolves once JetStream has stored them. The
 * message id is attempt plus phase, so a finished report re-sent after a
 * redelivery inside the duplicate window is dropped.
 */
export function createReporter(js: JetStreamClient, names: NatsNames, identity: { pool: string; workerId: string }) {
  return async (fields: ReportFields): Promise<void> => {
    const report = create(AttemptReportSchema, {
      ...fields,
      pool: identity.pool,
      workerId: identity.workerId,
      atUnixMs: BigInt(Date.now()),
    });
    // A redelivered task reports STARTED again, so that report's id carries the delivery.
    const id = fields.phase === AttemptPhase.STARTED ? `${fields.attemptId}:started:${fields.deliveryCount ?? 0}` : `${fields.attemptId}:finished`;
    await js.publish(names.reportsSubject, toBinary(AttemptReportSchema, report), { msgID: id });
  };
}

export type Reporter = ReturnType<typeof createReporter>;
