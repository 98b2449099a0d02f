import { addOnsOf } from '../../common/pricing.js';
import { jobDeadlineMs } from '../../common/limits.js';
import { TIER_POOLS, type Tier } from '../../common/tiers.js';
import type { ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { JobSpec } from '../jobs/admission.js';
import { requestToJson } from '../scheduler/dispatcher.js';
import { firstAttemptPrice, reserveSteps, type TierPlan, type TierPlanInput } from '../scheduler/tier-plan.js';

/** What tier planning reads from a scrape request. */
export function tierPlanInput(request: ScrapeRequest): Omit<TierPlanInput, 'availableTiers' | 'documentPool'> {
  return {
    mode: request.mode,
    renderJs: request.advanced?.['render_js'] === true,
    ocr: request.advanced?.['ocr'] === true,
    method: request.method,
    ...browserOptionOf(request),
    ...(request.followRedirects === false ? { followRedirects: false } : {}),
    addOns: addOnsOf(request.mode, request.advanced),
    costControls: request.costControls ?? {},
  };
}

/** The first option of the request only a browser carries out, if any. */
function browserOptionOf(request: ScrapeRequest): { browserOption?: string } {
  if (request.waitFor) return { browserOption: 'wait_for' };
  if (request.enableScroll === true) return { browserOption: 'enable_scroll' };
  return {};
}

/** The job a scrape request becomes: it starts on the plan's first tier and reserves the plan's most expensive one. */
export function scrapeJobSpec(request: ScrapeRequest, plan: TierPlan, options: { id: string; inputKey?: string }): JobSpec {
  const first = plan.tiers[0] as Tier;
  return {
    id: options.id,
    kind: 'scrape',
    url: request.url,
    mode: request.mode,
    formats: request.formats,
    sync: request.sync,
    request: requestToJson(request),
    tierPlan: plan.tiers,
    pool: plan.pool ?? TIER_POOLS[first],
    reserveMicrocents: plan.maxCostMicrocents,
    reserveSteps: reserveSteps(plan),
    attemptPriceMicrocents: firstAttemptPrice(plan),
    deadline: new Date(Date.now() + jobDeadlineMs(request.timeout)),
    ...(options.inputKey ? { inputKey: options.inputKey } : {}),
    estimatedTier: first,
    requestWebhook: request.webhookUrl ? { url: request.webhookUrl } : null,
  };
}
