import type { Job } from '../../../proto/gen/trawl/v1/scrape_pb.js';

export { presentResult } from '../../../common/scrape-result-json.js';

export function pollUrl(jobId: string): string {
  return `/api/v1/jobs/${jobId}`;
}

export function presentJobError(job: Job) {
  if (!job.error) return null;
  return {
    code: job.error.code,
    message: job.error.message,
    details: job.error.details ?? {},
  };
}
