import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import { TrawlError } from '../../common/errors.js';
import { validateExtractionSchema } from '../../common/extraction-schema.js';
import { INLINE_BODY_LIMIT_BYTES } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { SLOW_TIER, tierRank } from '../../common/tiers.js';
import type { PremiumProxy } from '../../common/proxy-url.js';
import { EstimateResponseSchema, GetJobResponseSchema, ScrapeService, SubmitResponseSchema, type ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { callerOf } from '../accounts/caller.js';
import { subscriptionInactive } from '../billing/subscription.js';
import { answersInBinary } from '../wire-format.js';
import { admitJob, refuseUnconfiguredPrompt } from '../jobs/admission.js';
import { checkWebhookTarget } from '../webhooks/webhook-target.js';
import type { GuardOptions } from '../../common/ssrf-guard.js';
import type { JobSignal, JobSignals } from '../jobs/job-signals.js';
import { admitWithInput, dispatchAndWait, endedJob } from '../scheduler/job-run.js';
import { accountAllowance, insertCachedJob, type Db } from '../jobs/job-store.js';
import { jobView, jobViewField, type JobLoader } from '../jobs/job-view.js';
import type { DispatchEntitlement } from '../limits/dispatch-entitlement.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import { affordablePlan, estimateTiers, firstAttemptPrice, planTiers } from '../scheduler/tier-plan.js';
import { cookiesForScrape } from '../sessions/session-store.js';
import { admitProxyOptions, deployedTiers, locationCountry } from './proxy-options.js';
import { cacheIdentity, readCachedResult } from './result-cache.js';
import { scrapeJobSpec, tierPlanInput } from './scrape-job.js';
import type { TierMemory } from './tier-memory.js';

export interface ScrapeServiceDeps {
  pool: Db;
  redis: Redis;
  keys: RedisKeys;
  dispatcher: Dispatcher;
  signals: JobSignals;
  availableTiers: readonly string[];
  /** Whether the document pool (modes pdf and ocr) is deployed. */
  documentPool: boolean;
  llmConfigured: boolean;
  jobs: JobLoader;
  /** Seals and opens stored sessions' cookies. */
  masterKeyHex: string;
  /** How long a job's result is kept; a copy served from the cache is kept as long. */
  resultTtlSeconds: number;
  log: Logger;
  /** In-flight and admission-rate limits of the account's tier (SPEC 8.1 rule 5). */
  entitlement: DispatchEntitlement;
  /** The SSRF guard a webhook_url and the caller's own proxy pass before the job is admitted. */
  guard: GuardOptions;
  /** Where the tier that last worked for a host is recalled from. */
  tierMemory: TierMemory;
  /** The premium proxy pool (use_proxy, tier 3.5). */
  premiumProxies: readonly PremiumProxy[];
}

/** Tiers from which a sync request is handed off at once (SPEC 4.1 rule 1): they take long. */
const isSlowTier = (tier: string) => tierRank(tier) >= tierRank(SLOW_TIER);

export function createScrapeService(deps: ScrapeServiceDeps): ServiceImpl<typeof ScrapeService> {
  const planInput = (request: ScrapeRequest) => ({
    ...tierPlanInput(request),
    availableTiers: deployedTiers(deps.availableTiers, deps.premiumProxies, locationCountry(request)),
    documentPool: deps.documentPool,
  });
  return {
    async submit(req, ctx) {
      const caller = callerOf(ctx);
      if (!req.request || !req.request.url) throw new TrawlError('VALIDATION_ERROR', 'request.url is required');
      const { request, ownProxyUrl } = await admitProxyOptions(req.request, { premium: deps.premiumProxies, guard: deps.guard });
      if (request.extractionSchema !== undefined) validateExtractionSchema(request.extractionSchema);
      refuseUnconfiguredPrompt(request.extractionPrompt, deps.llmConfigured);
      if (request.webhookUrl) await checkWebhookTarget(request.webhookUrl, deps.guard);
      const learnedTier = await deps.tierMemory.recall(caller.accountId, request.url);
      const plan = planTiers({ ...planInput(request), learnedTier });
      const jobId = randomUUID();
      // A stored session is checked (deleted, expired, another site's: SESSION_*) before anything else, cache hits included.
      const sessionId = request.advanced?.['session_id'];
      const sessionCookies = typeof sessionId === 'string' ? await cookiesForScrape(deps.pool, deps.masterKeyHex, caller.accountId, sessionId, request.url) : undefined;
      // The identity a result is cached under is made here, once, with the private inputs, and recorded with the
      // request for the worker that stores the result; whatever a caller put there is replaced.
      const identity = request.cache ? cacheIdentity(request, caller.accountId, { sessionCookies, ownProxyUrl }) : null;
      request.cacheIdentity = identity ?? '';
      const hit = identity && !request.forceRefresh ? await readCachedResult(deps.redis, deps.keys, identity) : null;
      if (hit) {
        // A cache hit is free and dispatches nothing: recorded as a succeeded job of its own, with its own copy of the result.
        const resultKey = deps.keys.result(jobId, 'cached');
        const spec = scrapeJobSpec(request, plan, { id: jobId });
        const recorded = await insertCachedJob(deps.pool, { ...spec, id: jobId, accountId: caller.accountId, apiKeyId: caller.keyId, requestId: req.requestId, tier: hit.tier, resultKey });
        if (!recorded) throw subscriptionInactive({});
        await deps.redis.set(resultKey, Buffer.from(hit.result), 'EX', deps.resultTtlSeconds);
        const loaded = await deps.jobs.load(jobId, caller.accountId);
        if (!loaded) throw new TrawlError('INTERNAL_ERROR', 'The job record vanished');
        return create(SubmitResponseSchema, { job: jobView(loaded, { binary: answersInBinary(ctx) }), balanceMicrocents: loaded.balanceMicrocents });
      }
      // A large request body waits in Redis, so the task stays well under the NATS message limit.
      const parked = Buffer.byteLength(request.body ?? '', 'utf8') > INLINE_BODY_LIMIT_BYTES ? { key: deps.keys.scrapeBody(jobId), value: request.body! } : undefined;
      // A stored session's cookies travel to the worker through Redis, never in the job record or the task.
      const cookies = sessionCookies ? { key: deps.keys.sessionCookies(jobId), value: JSON.stringify(sessionCookies) } : undefined;
      const ownProxy = ownProxyUrl ? { key: deps.keys.ownProxy(jobId), value: ownProxyUrl } : undefined;
      const spec = scrapeJobSpec(request, plan, { id: jobId, ...(parked ? { inputKey: parked.key } : {}) });
      const admitted = await deps.entitlement.dispatch(ctx, caller, [jobId], spec.deadline, () =>
        admitWithInput(deps.redis, [parked, cookies, ownProxy].filter((i) => i !== undefined), spec.deadline, () => admitJob(deps.pool, caller, spec, req.requestId)),
      );
      const handOffEarly = request.syncPolicy !== 'wait_until_deadline';
      const waitHere = req.wait && !(handOffEarly && isSlowTier(admitted.attempt.tier));
      const accept = (signal: JobSignal) => signal.kind === 'ended' || (handOffEarly && signal.kind === 'escalated' && isSlowTier(signal.tier));
      const signal = await dispatchAndWait(deps, admitted, waitHere ? { timeoutMs: req.waitMs, accept } : undefined);
      const loaded = await deps.jobs.load(jobId, caller.accountId, endedJob(signal));
      if (!loaded) throw new TrawlError('INTERNAL_ERROR', 'The job record vanished');
      return create(SubmitResponseSchema, { job: jobView(loaded, { binary: answersInBinary(ctx) }), balanceMicrocents: loaded.balanceMicrocents });
    },

    async estimate(req, ctx) {
      const caller = callerOf(ctx);
      if (!req.request || !req.request.url) throw new TrawlError('VALIDATION_ERROR', 'request.url is required');
      // What a scrape refuses before it is admitted, an estimate refuses too; and it starts where the scrape would.
      const { request } = await admitProxyOptions(req.request, { premium: deps.premiumProxies, guard: deps.guard });
      if (request.extractionSchema !== undefined) validateExtractionSchema(request.extractionSchema);
      const learnedTier = await deps.tierMemory.recall(caller.accountId, request.url);
      const input = { ...planInput(request), learnedTier };
      const estimated = estimateTiers(input);
      // Cut to what the account may spend, as admission cuts it; a test key spends nothing.
      const { plan, affordable } =
        caller.environment === 'test' ? { plan: estimated.plan, affordable: true } : affordablePlan(estimated.plan, await accountAllowance(deps.pool, caller.accountId, caller.keyId));
      // A prompt without an LLM configured is what this service cannot run (a scrape answers 503), as a missing pool is.
      const runnable = estimated.runnable && !(request.extractionPrompt && !deps.llmConfigured);
      return create(EstimateResponseSchema, {
        tiers: plan.tiers,
        estimatedMicrocents: BigInt(firstAttemptPrice(plan)),
        maxPossibleMicrocents: BigInt(plan.maxCostMicrocents),
        runnable,
        affordable,
        availableTiers: [...input.availableTiers],
      });
    },

    async getJob(req, ctx) {
      const loaded = await deps.jobs.load(req.jobId, callerOf(ctx).accountId);
      if (!loaded) throw new TrawlError('NOT_FOUND', `No job ${req.jobId}`);
      if (!answersInBinary(ctx)) return create(GetJobResponseSchema, { job: jobView(loaded, { binary: false }) });
      // In binary the job travels in wire form, an ended job's encoded once (jobViewField).
      const answer = create(GetJobResponseSchema);
      answer.$unknown = [jobViewField(loaded, GetJobResponseSchema.field.job!.number)];
      return answer;
    },
  };
}
