import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { createJobBodies } from './job-bodies.js';
import { presentJob } from './presenters.js';
import { JobIdParam, JobRecord } from './schemas.js';

export function jobRoutes(deps: { controlPlane: ControlPlane; jobBodiesBytes?: number }): AnyRoute[] {
  const bodies = createJobBodies({ maxBytes: deps.jobBodiesBytes ?? 0, render: (job) => JSON.stringify(presentJob(job)) });
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/jobs/{job_id}',
      operationId: 'getJob',
      summary: 'Poll a scrape job',
      tags: ['Scrape'],
      auth: 'api_key',
      request: { params: JobIdParam },
      responses: { 200: { description: 'The job record', schema: JobRecord } },
      errors: {
        404: "NOT_FOUND (unknown job, or another account's)",
        410: 'RESULT_UNAVAILABLE (the job succeeded but its stored result is no longer kept; run the request again)',
      },
      handler: async ({ ctx, params }) => {
        ctx.state.trawl.jobId = params.job_id;
        const { job } = await deps.controlPlane.scrapeWire.getJob({ jobId: params.job_id }, callOptions(ctx, 10_000));
        ctx.type = 'application/json';
        ctx.body = bodies.body(params.job_id, job);
      },
    }),
  ];
}
