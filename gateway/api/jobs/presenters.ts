import type { Job } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { presentBilling } from '../shared/billing.js';
import { pollUrl, presentJobError, presentResult } from '../scrape/presenters.js';

export function presentJob(job: Job) {
  return {
    job_id: job.jobId,
    status: job.status,
    url: job.url,
    mode: job.mode,
    formats: job.formats,
    sync: job.sync,
    tier: job.tier,
    attempts: job.attempts,
    created_at: job.createdAt,
    started_at: job.startedAt ?? null,
    completed_at: job.completedAt ?? null,
    poll_url: pollUrl(job.jobId),
    result: job.result ? presentResult(job.result) : null,
    error: presentJobError(job),
    billing: presentBilling(job.billing, job.status === 'failed'),
    version: 'v1' as const,
  };
}
