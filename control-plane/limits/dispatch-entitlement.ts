import type { HandlerContext } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { BalanceTier } from '../../common/balance-tiers.js';
import { TrawlError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { rateLimitScript, retryAfterSeconds, type LimitDecision } from '../../common/rate-limit-script.js';
import { addLimitHeaders } from '../../common/rate-limit-headers.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import type { JobSignals } from '../jobs/job-signals.js';
import { tierOfCaller, type AccountTiers, type TierCaller } from './account-tiers.js';

/** An in-flight slot outlives its job's deadline by this much: the sweeper fails an overdue job within seconds of it. */
const IN_FLIGHT_GRACE_MS = 60_000;

export interface DispatchEntitlement {
  /**
   * The one way a route dispatches jobs (scrape now; crawl, batch, schedules
   * later): takes their in-flight slots, all or none, within the tier's
   * concurrent requests and its effective POST per minute (SPEC 8.1 rule 5),
   * then runs `admit` (which records them); if that throws, the slots are
   * freed again. Sets the X-Dispatch-Entitlement-* headers on the call's
   * answer; over the entitlement throws rate_limit_exceeded with the SPEC 7.4
   * body and admits nothing.
   */
  dispatch<T>(ctx: HandlerContext, caller: TierCaller, jobIds: readonly string[], deadline: Date, admit: () => Promise<T>): Promise<T>;
  /** Frees the in-flight slots of jobs that ended; ids not held are ignored. */
  release(accountId: string, jobIds: readonly string[]): void;
}

export interface DispatchEntitlementDeps {
  redis: Redis;
  keys: RedisKeys;
  pool: pg.Pool;
  tiers: AccountTiers;
  /** Where the 429 body's docs_url points. */
  docsUrl: string;
  log: Logger;
}

/** Entitlement when limits are off: everything is admitted and nothing is counted. */
export const UNLIMITED_DISPATCH: DispatchEntitlement = {
  dispatch: (_ctx, _caller, _jobIds, _deadline, admit) => admit(),
  release() {},
};

function entitlementHeaders(tier: BalanceTier, d: LimitDecision): Record<string, string> {
  return {
    'x-dispatch-entitlement-limit': String(tier.effectivePostPerMinute),
    'x-dispatch-entitlement-remaining': String(d.remaining),
    'x-dispatch-entitlement-reset': String(Math.ceil(d.resetAtMs / 1000)),
  };
}

/**
 * In-flight jobs live in a sorted set per account scored by their deadline
 * (plus a grace), so a slot whose release was lost (the process died between
 * ending the job and releasing it) expires on its own; and when the set is
 * full, the jobs in it that Postgres says have ended are dropped and the
 * admission tried once more, so a lost release never refuses anyone.
 */
export function createDispatchEntitlement(deps: DispatchEntitlementDeps): DispatchEntitlement {
  const script = rateLimitScript(deps.redis);
  const take = (accountId: string, tier: BalanceTier, jobIds: readonly string[], ttlMs: number) =>
    script.take([{ key: deps.keys.dispatchRate(accountId), count: tier.effectivePostPerMinute, periodMs: 60_000 }], jobIds.length, {
      key: deps.keys.dispatchInFlight(accountId),
      ceiling: tier.concurrentRequests,
      ttlMs,
      ids: jobIds,
    });

  /** Drops the held jobs that are no longer pending or running; answers whether any was dropped. */
  const dropEnded = async (accountId: string): Promise<boolean> => {
    const key = deps.keys.dispatchInFlight(accountId);
    const held = await deps.redis.zrange(key, 0, -1);
    if (held.length === 0) return false;
    const open = await deps.pool.query<{ id: string }>(
      "SELECT id FROM jobs WHERE id = ANY($1::uuid[]) AND account_id = $2 AND status IN ('pending', 'running')",
      [held, accountId],
    );
    const stillOpen = new Set(open.rows.map((r) => r.id));
    const ended = held.filter((id) => !stillOpen.has(id));
    if (ended.length > 0) await deps.redis.zrem(key, ...ended);
    return ended.length > 0;
  };

  const release = (accountId: string, jobIds: readonly string[]) => {
    if (jobIds.length === 0) return;
    deps.redis.zrem(deps.keys.dispatchInFlight(accountId), ...jobIds).catch((err) => {
      deps.log.warn({ err, accountId }, 'releasing in-flight jobs failed; their slots expire or are dropped when the account is full');
    });
  };

  const entitle = async (ctx: HandlerContext, caller: TierCaller, jobIds: readonly string[], deadline: Date) => {
    const { accountId } = caller;
    const tier = await tierOfCaller(deps.tiers, caller);
    const ttlMs = Math.max(1_000, deadline.getTime() - Date.now()) + IN_FLIGHT_GRACE_MS;
    let decision = await take(accountId, tier, jobIds, ttlMs);
    if (decision.refused === 2 && (await dropEnded(accountId))) decision = await take(accountId, tier, jobIds, ttlMs);
    addLimitHeaders(ctx.responseHeader, 'dispatch', entitlementHeaders(tier, decision));
    if (decision.refused === 0) return;

    const concurrent = decision.refused === 2;
    const retryAfter = retryAfterSeconds(decision.retryAfterMs);
    addLimitHeaders(ctx.responseHeader, 'dispatch', { 'retry-after': String(retryAfter) });
    const limit = concurrent ? tier.concurrentRequests : tier.effectivePostPerMinute;
    throw new TrawlError(
      'rate_limit_exceeded',
      concurrent
        ? `The account has ${decision.leasesHeld} jobs in flight and may have ${limit} at the ${tier.name} tier; retry after ${retryAfter} s`
        : `The account may dispatch ${limit} jobs per minute at the ${tier.name} tier; retry after ${retryAfter} s`,
      {
        detail: {
          scope: concurrent ? 'global_concurrent' : 'global_rate',
          domain: null,
          limit,
          in_flight: decision.leasesHeld,
          requested: jobIds.length,
          accepted: 0,
          account_tier: tier.id,
          retry_after_seconds: retryAfter,
        },
        docs_url: deps.docsUrl,
      },
    );
  };

  return {
    async dispatch(ctx, caller, jobIds, deadline, admit) {
      await entitle(ctx, caller, jobIds, deadline);
      try {
        return await admit();
      } catch (err) {
        release(caller.accountId, jobIds);
        throw err;
      }
    },
    release,
  };
}

/**
 * The job signals with every job end freeing its in-flight slot: each way a
 * job ends (settled, failed, timed out by the sweeper) announces it in the
 * process that ended it, with the job's record.
 */
export function releasingEndedJobs(signals: JobSignals, entitlement: DispatchEntitlement): JobSignals {
  return {
    announce(jobId, signal) {
      if (signal.kind === 'ended' && signal.record) entitlement.release(signal.record.account_id, [jobId]);
      signals.announce(jobId, signal);
    },
    watch: (jobId) => signals.watch(jobId),
    watching: (jobId) => signals.watching(jobId),
    stop: () => signals.stop(),
  };
}
