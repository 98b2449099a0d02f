import { toBinary } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import { ScrapeResultSchema, type ScrapeResult } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { AttemptPhase, type ScrapeTask } from '../../proto/gen/trawl/v1/work_pb.js';
import type { TaskContext } from './pool-runtime.js';
import type { ReportFields, Reporter } from './reporter.js';
import type { ResultStore } from './result-store.js';

type Extra = Omit<Partial<ReportFields>, 'jobId' | 'attemptId' | 'phase'>;

/**
 * How every pool tells the control plane what happened to an attempt. A
 * finished attempt is marked in Redis after its report is out, so a
 * redelivered task is recognised and skipped.
 */
export function createAttemptReporting(deps: { report: Reporter; results: ResultStore }) {
  const finish = async (task: ScrapeTask, fields: ReportFields) => {
    await deps.report(fields);
    await deps.results.markFinished(task.attemptId);
  };
  const base = (task: ScrapeTask, ctx: TaskContext) => ({
    jobId: task.jobId,
    attemptId: task.attemptId,
    tier: task.tier,
    deliveryCount: ctx.deliveryCount,
  });
  return {
    alreadyFinished: (task: ScrapeTask) => deps.results.isFinished(task.attemptId),
    started: (task: ScrapeTask, ctx: TaskContext) => deps.report({ ...base(task, ctx), phase: AttemptPhase.STARTED }),
    fail: (task: ScrapeTask, ctx: TaskContext, code: string, message: string, extra: Extra = {}) =>
      finish(task, { ...base(task, ctx), phase: AttemptPhase.FINISHED, ok: false, errorCode: code, errorMessage: message, ...extra }),
    async succeed(task: ScrapeTask, ctx: TaskContext, result: ScrapeResult, extra: Extra = {}) {
      const key = deps.results.resultKey(task.jobId, task.attemptId);
      await deps.results.put(key, toBinary(ScrapeResultSchema, result));
      await finish(task, { ...base(task, ctx), phase: AttemptPhase.FINISHED, ok: true, resultKey: key, ...extra });
    },
  };
}

export type AttemptReporting = ReturnType<typeof createAttemptReporting>;

/** A pipeline failure as a public code: typed errors keep theirs (a bad schema is a 400), the rest cannot be parsed. */
export function pipelineFailure(err: unknown): { code: string; message: string } {
  if (err instanceof TrawlError) return { code: err.code, message: err.message };
  return { code: 'EXTRACTION_FAILED', message: err instanceof Error ? err.message : 'The content could not be processed' };
}
