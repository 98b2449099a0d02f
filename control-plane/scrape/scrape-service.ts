import type { ServiceImpl, HandlerContext } from '@connectrpc/connect';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { create } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import type { NatsNames } from '../../common/nats-names.js';
import type { Logger } from '../../common/logger.js';
import { EstimateResponseSchema, ScrapeService, SubmitResponseSchema, GetJobResponseSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { Authenticator } from '../accounts/authenticator.js';
import { TIER_ORDER, TIER_PRICES } from '../billing/prices.js';
import { planTiers } from '../scheduler/tier-plan.js';
import { publishAttempt } from '../scheduler/dispatcher.js';
import { watchJob, type JobSignal } from '../scheduler/job-waiters.js';
import { admitScrape, tierPlanInput } from './admission.js';
import { loadJobView } from './job-view.js';
import { validateExtractionSchema } from '../../common/extraction-schema.js';
import { randomUUID } from 'node:crypto';

/** Request bodies above this travel to the worker through Redis instead of inside the task. */
export const INLINE_BODY_LIMIT_BYTES = 64 * 1024;
/** How long a parked request body is kept: longer than any job's deadline. */
const INPUT_TTL_SECONDS = 3_600;

export interface ScrapeServiceDeps {
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  js: JetStreamClient;
  names: NatsNames;
  authenticator: Authenticator;
  availableTiers: readonly string[];
  log: Logger;
}

/** Tiers from which a sync request is handed off at once (SPEC 4.1 rule 1): they take long. */
const HANDOFF_TIER = '3';
const isSlowTier = (tier: string) =>
  TIER_ORDER.indexOf(tier as (typeof TIER_ORDER)[number]) >= TIER_ORDER.indexOf(HANDOFF_TIER);

/** Authenticates a call and tells the caller which account it resolved to, for its request log. */
export async function authenticateCall(authenticator: Authenticator, ctx: HandlerContext) {
  const auth = await authenticator.authenticate(ctx.requestHeader.get('x-api-key'));
  ctx.responseHeader.set('trawl-account-id', auth.accountId);
  ctx.responseHeader.set('trawl-api-key-id', auth.keyId);
  return auth;
}

export function createScrapeService(deps: ScrapeServiceDeps): ServiceImpl<typeof ScrapeService> {
  return {
    async submit(req, ctx) {
      const auth = await authenticateCall(deps.authenticator, ctx);
      if (!req.request || !req.request.url) throw new TrawlError('VALIDATION_ERROR', 'request.url is required');
      if (req.request.extractionSchema !== undefined) validateExtractionSchema(req.request.extractionSchema);
      // A large request body waits in Redis, so the task stays well under the NATS message limit.
      const jobId = randomUUID();
      let inputKey: string | undefined;
      if (Buffer.byteLength(req.request.body ?? '', 'utf8') > INLINE_BODY_LIMIT_BYTES) {
        inputKey = `${deps.names.workStream}:scrape-body:${jobId}`;
        await deps.redis.set(inputKey, req.request.body!, 'EX', INPUT_TTL_SECONDS);
      }
      let admitted;
      try {
        admitted = await admitScrape(deps, auth, req.request, req.requestId, { id: jobId, ...(inputKey ? { inputKey } : {}) });
      } catch (err) {
        if (inputKey) await deps.redis.del(inputKey);
        throw err;
      }
      const handOffEarly = req.request.syncPolicy !== 'wait_until_deadline';
      const waitHere = req.wait && !(handOffEarly && isSlowTier(admitted.attempt.tier));
      const waiter = waitHere ? watchJob(deps.nc, deps.names, admitted.job.id) : null;
      try {
        await publishAttempt(deps, admitted.job, admitted.attempt).catch((err) => {
          // The sweeper republishes unpublished attempts; the job is not lost.
          deps.log.warn({ err, jobId: admitted.job.id }, 'publishing a task failed; the sweeper will retry');
        });
        if (waiter) {
          const accept = (signal: JobSignal) =>
            signal.kind === 'ended' || (handOffEarly && signal.kind === 'escalated' && isSlowTier(signal.tier));
          // The job may have ended before the subscription saw anything.
          const first = await loadJobView(deps, admitted.job.id, auth.accountId);
          if (!first || first.status === 'pending' || first.status === 'running') await waiter.wait(req.waitMs, accept);
        }
      } finally {
        waiter?.close();
      }
      const job = await loadJobView(deps, admitted.job.id, auth.accountId);
      if (!job) throw new TrawlError('INTERNAL_ERROR', 'The job record vanished');
      const balance = await deps.pool.query<{ balance_microcents: string }>('SELECT balance_microcents FROM accounts WHERE id = $1', [
        auth.accountId,
      ]);
      return create(SubmitResponseSchema, { job, balanceMicrocents: BigInt(balance.rows[0]?.balance_microcents ?? 0) });
    },

    async estimate(req, ctx) {
      await authenticateCall(deps.authenticator, ctx);
      if (!req.request || !req.request.url) throw new TrawlError('VALIDATION_ERROR', 'request.url is required');
      const input = tierPlanInput(req.request);
      let plan;
      let runnable = true;
      try {
        plan = planTiers({ ...input, availableTiers: deps.availableTiers });
      } catch (err) {
        // Not deployable here: price the plan as if every tier were, and say so.
        if (!(err instanceof TrawlError) || err.code !== 'SERVICE_UNAVAILABLE') throw err;
        plan = planTiers({ ...input, availableTiers: TIER_ORDER });
        runnable = false;
      }
      return create(EstimateResponseSchema, {
        tiers: plan.tiers,
        estimatedMicrocents: BigInt(TIER_PRICES[plan.tiers[0]!] ?? 0),
        maxPossibleMicrocents: BigInt(plan.maxCostMicrocents),
        runnable,
        availableTiers: [...deps.availableTiers],
      });
    },

    async getJob(req, ctx) {
      const auth = await authenticateCall(deps.authenticator, ctx);
      const job = await loadJobView(deps, req.jobId, auth.accountId);
      if (!job) throw new TrawlError('NOT_FOUND', `No job ${req.jobId}`);
      return create(GetJobResponseSchema, { job });
    },
  };
}
