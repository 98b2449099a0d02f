import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentJob } from './presenters.js';
import { JobIdParam, JobRecord } from './schemas.js';

export function jobRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
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
      errors: { 404: "NOT_FOUND (unknown job, or another account's)" },
      handler: async ({ ctx, params }) => {
        ctx.state.trawl.jobId = params.job_id;
        const { job } = await deps.controlPlane.scrape.getJob({ jobId: params.job_id }, callOptions(ctx, 10_000));
        ctx.body = presentJob(job!);
      },
    }),
  ];
}
