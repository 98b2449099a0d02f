import { fromJson } from '@bufbuild/protobuf';
import type { Logger } from '../../common/logger.js';
import { isTier } from '../../common/tiers.js';
import { AttemptPhase, type AttemptReport } from '../../proto/gen/trawl/v1/work_pb.js';
import type { JobSignal } from '../jobs/job-signals.js';
import { loadEscalationContext, type AttemptOutcome, type EscalationContext, type AttemptRow, type Db, type JobForTask, type JobRecord, type StartedAttempt } from '../jobs/job-store.js';
import { escalateJob, failJob, settleJob } from '../jobs/lifecycle.js';
import type { WriteBatcher } from '../jobs/write-batcher.js';
import type { TierMemory } from '../scrape/tier-memory.js';
import { JS_SHELL, nextTier } from '../../common/tier-escalation.js';
import { ScrapeRequestSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { tierPlanInput } from '../scrape/scrape-job.js';
import { unrenderedShell } from './tier-plan.js';

export interface ReportEffects {
  /** Attempts to publish now that their rows are committed. */
  dispatch: Array<{ job: JobForTask; attempt: AttemptRow }>;
  /** Signals to announce on the job's done subject. */
  signals: Array<{ jobId: string; signal: JobSignal }>;
}

export interface ReportDeps {
  pool: Db;
  /** Where STARTED reports are written, several in one statement. */
  started: WriteBatcher<StartedAttempt>;
  log: Logger;
  /** Told the tier a scrape escalated to, so the account's next scrapes of the host start there. */
  tierMemory: Pick<TierMemory, 'remember'>;
}

function attemptOutcome(report: AttemptReport): AttemptOutcome {
  return {
    attemptId: report.attemptId,
    succeeded: report.ok,
    result: report.ok ? 'success' : report.errorCode.toLowerCase(),
    errorCode: report.ok ? null : report.errorCode,
    errorMessage: report.ok ? null : report.errorMessage,
    escalate: report.escalate,
    statusCode: report.statusCode || null,
    fetchMs: Number(report.fetchMs),
    durationMs: Number(report.fetchMs + report.processMs),
    bytes: Number(report.bytes),
    workerId: report.workerId,
    startedAt: report.startedUnixMs > 0n ? new Date(Number(report.startedUnixMs)) : null,
    deliveries: report.deliveryCount,
  };
}

/** Whether a succeeded job got there after an attempt on another tier. */
const escalatedTo = (job: JobRecord) => job.status === 'succeeded' && job.attempt_list.some((a) => a.tier !== job.current_tier);

/** The memory is an optimisation: losing it costs a probe, never the report. */
async function rememberQuietly(deps: ReportDeps, job: JobRecord): Promise<void> {
  try {
    await deps.tierMemory.remember(job.account_id, job.url, job.current_tier!);
  } catch (err) {
    deps.log.warn({ err, jobId: job.id }, 'remembering the tier that worked failed');
  }
}

/**
 * Applies one attempt report and answers what to publish and announce.
 * Idempotent: a report for an attempt that has already finished, or for a
 * job that has already ended, changes nothing, so a redelivered report never
 * settles, refunds or escalates twice.
 */
export async function applyAttemptReport(deps: ReportDeps, report: AttemptReport): Promise<ReportEffects> {
  const effects: ReportEffects = { dispatch: [], signals: [] };
  if (report.phase === AttemptPhase.STARTED) {
    await deps.started.add({ jobId: report.jobId, attemptId: report.attemptId, workerId: report.workerId, deliveries: report.deliveryCount });
    return effects;
  }
  const outcome = attemptOutcome(report);
  const ended = (record: JobRecord | null) => {
    if (record) effects.signals.push({ jobId: report.jobId, signal: { kind: 'ended', record } });
    return effects;
  };

  const loadJob = () => loadEscalationContext(deps.pool, report.jobId, report.attemptId);
  const escalate = async (job: EscalationContext | undefined, failed: AttemptOutcome, classification?: string): Promise<boolean> => {
    if (!job) return false;
    const advanced = job.request['advanced'] as Record<string, unknown> | undefined;
    const next = nextTier(job.tier_plan, job.tier, { classification, renderJs: advanced?.['render_js'], mode: job.request['mode'] as string | undefined });
    if (next === undefined || !isTier(next)) return false;
    const attempt = await escalateJob(deps.pool, job, failed, next);
    if (attempt) {
      effects.dispatch.push({ job, attempt });
      effects.signals.push({ jobId: job.id, signal: { kind: 'escalated', tier: next } });
    }
    return true;
  };

  if (report.ok) {
    // A JavaScript shell is a page, but not the content: a browser tier renders it when the plan has one.
    if (report.classification === JS_SHELL) {
      const asShell = { ...outcome, succeeded: false, result: JS_SHELL };
      const job = await loadJob();
      if (await escalate(job, asShell, JS_SHELL)) return effects;
      // With no browser tier left, the shell is the answer only when the caller chose that (unrenderedShell).
      const request = job ? fromJson(ScrapeRequestSchema, job.request, { ignoreUnknownFields: true }) : undefined;
      const why = request ? unrenderedShell(tierPlanInput(request), request.advanced?.['render_js']) : null;
      if (why) return ended(await failJob(deps.pool, report.jobId, asShell, { code: 'EXTRACTION_FAILED', message: why, statusCode: report.statusCode }));
    }
    const settled = await settleJob(deps.pool, report.jobId, outcome, { resultKey: report.resultKey, statusCode: report.statusCode });
    if (settled?.current_tier && escalatedTo(settled)) await rememberQuietly(deps, settled);
    return ended(settled);
  }

  if (report.escalate && (await escalate(await loadJob(), outcome, report.classification || undefined))) return effects;

  const failure = {
    code: report.errorCode || 'SCRAPE_FAILED',
    message: report.errorMessage || 'The scrape failed',
    ...(report.statusCode ? { statusCode: report.statusCode, details: { target_status_code: report.statusCode } } : {}),
  };
  return ended(await failJob(deps.pool, report.jobId, outcome, failure));
}
