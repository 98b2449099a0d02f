import type Router from '@koa/router';
import type { Context } from 'koa';
import { fromConnectError } from '../../common/rpc-errors.js';
import type { ControlPlane } from '../control-plane-client.js';
import { validationError } from '../http-errors.js';
import { presentJob } from '../presenters.js';
import { JobIdParam } from '../schemas/jobs.js';
import { callOptions } from './call-options.js';

export function registerJobRoutes(router: Router, deps: { controlPlane: ControlPlane }) {
  router.get('/api/v1/jobs/:job_id', async (ctx: Context) => {
    ctx.state.trawl.route = 'GET /api/v1/jobs/{job_id}';
    const parsed = JobIdParam.safeParse(ctx.params);
    if (!parsed.success) throw validationError(parsed.error, 'job_id');
    ctx.state.trawl.jobId = parsed.data.job_id;
    try {
      const { job } = await deps.controlPlane.scrape.getJob({ jobId: parsed.data.job_id }, callOptions(ctx, 10_000));
      ctx.body = presentJob(job!);
    } catch (err) {
      throw fromConnectError(err);
    }
  });
}
