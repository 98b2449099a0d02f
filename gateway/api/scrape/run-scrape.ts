import type { Context } from 'koa';
import { TrawlError, isErrorCode } from '../../../common/errors.js';
import { toCredits, toMicrocents } from '../../../common/pricing.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions, syncTimeLeftMs } from '../../http/call-options.js';
import { addErrorFields } from '../../http/request-context.js';
import { presentBilling } from '../shared/billing.js';
import { pollUrl, presentJobError, presentResult } from './presenters.js';
import type { ScrapeRequestInput } from './schemas.js';
import { toProto } from './to-proto.js';

/** Runs one unified scrape and writes its answer (200, 202, or the error envelope via a throw). */
export async function runScrape(
  ctx: Context,
  controlPlane: ControlPlane,
  input: ScrapeRequestInput,
): Promise<void> {
  const state = ctx.state.trawl;
  state.targetUrl = input.url;
  const waitMs = input.sync ? syncTimeLeftMs(state) : 0;
  const response = await controlPlane.scrape.submit(
    { request: toProto(input), wait: input.sync, waitMs, requestId: state.requestId },
    callOptions(ctx, waitMs + 15_000),
  );
  const job = response.job!;
  state.jobId = job.jobId;
  state.tier = job.tier;
  ctx.set('X-Service-Credits-Remaining', String(toCredits(response.balanceMicrocents)));

  // sync: false always answers 202, even for a job that ended at once (a cache hit).
  if (input.sync && job.status === 'succeeded' && job.result) {
    const charged = job.billing?.totalCredits ?? 0;
    state.creditsMicrocents = toMicrocents(charged);
    ctx.set('X-Service-Credits', String(charged));
    ctx.status = 200;
    ctx.body = { ...presentResult(job.result), billing: presentBilling(job.billing, false), job_id: job.jobId, version: 'v1' };
    return;
  }
  if (job.status === 'failed') {
    ctx.set('X-Service-Credits', '0');
    const error = presentJobError(job)!;
    addErrorFields(ctx, { billing: presentBilling(job.billing, true), job_id: job.jobId, version: 'v1' });
    throw new TrawlError(isErrorCode(error.code) ? error.code : 'SCRAPE_FAILED', error.message, { ...error.details, job_id: job.jobId });
  }
  ctx.status = 202;
  ctx.set('Location', pollUrl(job.jobId));
  ctx.body = {
    job_id: job.jobId,
    poll_url: pollUrl(job.jobId),
    status: job.status,
    message: input.sync
      ? 'The scrape is still running; poll poll_url for the result.'
      : job.status === 'succeeded'
        ? 'The result is ready; poll poll_url for it.'
        : 'The scrape was queued; poll poll_url for the result.',
    version: 'v1',
  };
}
