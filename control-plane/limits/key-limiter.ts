import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { BalanceTier } from '../../common/balance-tiers.js';
import { TrawlError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { rateLimitScript, retryAfterSeconds, type LimitDecision } from '../../common/rate-limit-script.js';
import type { RedisKeys } from '../../common/redis-keys.js';

/** Write requests (POST, PUT, PATCH, DELETE) cost two tokens, reads one (SPEC 8.1 rule 1). */
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function requestCost(httpMethod: string | null): number {
  return httpMethod && WRITE_METHODS.has(httpMethod.toUpperCase()) ? 2 : 1;
}

/** A call admitted under its key's limits: the headers of SPEC 8.3 for its answer, and the release of its lease. */
export interface AdmittedCall {
  headers: Record<string, string>;
  release(): void;
}

/** A call refused: the error to answer with, and the headers it carries. */
export class RateLimitRefusal extends TrawlError {
  readonly headers: Record<string, string>;
  constructor(message: string, details: Record<string, unknown>, headers: Record<string, string>) {
    super('RATE_LIMIT_EXCEEDED', message, details);
    this.headers = headers;
  }
}

export interface KeyLimiter {
  /** Spends the call's cost on the key's per-minute and per-second limits and takes a concurrency lease; throws RateLimitRefusal when over. */
  admit(keyId: string, tier: BalanceTier, cost: number): Promise<AdmittedCall>;
  stop(): void;
}

export interface KeyLimiterOptions {
  /** A lease lives this long unless its process renews it; a process that died holds a slot no longer. */
  leaseTtlMs: number;
  log: Logger;
}

const LIMIT_NAMES = ['requests_per_minute', 'burst_per_second', 'concurrent_requests'] as const;

/**
 * How long the lease of a call that ended may wait for the key's next call
 * to carry it to Redis: at most this long, other processes count the ended
 * call as still running. This process's next call never does.
 */
const RELEASE_DELAY_MS = 5;

/** A call waiting for its key's next run of the script. */
interface Waiting {
  cost: number;
  lease: string;
  tier: BalanceTier;
  /** The decision, and the tier the batch was decided at. */
  resolve(answer: { decision: LimitDecision; tier: BalanceTier }): void;
  reject(err: unknown): void;
}

/**
 * Per-API-key limits of SPEC 8.1: requests per minute and burst per second
 * (GCRA, writes cost two) and concurrent calls (leases), all decided by one
 * script run in Redis. A key has at most one run in flight per process: the
 * calls that arrive meanwhile wait for it and are decided together in the
 * next run, in arrival order, at the tier of the latest of them, so under
 * load a key costs one Redis round trip per batch rather than per call. The
 * process renews the leases of its calls still in progress every third of
 * their time to live and drops each when its call ends, with the key's next
 * run or within RELEASE_DELAY_MS.
 */
export function createKeyLimiter(redis: Redis, keys: RedisKeys, opts: KeyLimiterOptions): KeyLimiter {
  const script = rateLimitScript(redis);
  const live = new Map<string, string>();
  const renew = setInterval(() => {
    const byKey = new Map<string, string[]>();
    for (const [lease, keyId] of live) (byKey.get(keyId) ?? byKey.set(keyId, []).get(keyId)!).push(lease);
    for (const [keyId, leases] of byKey) {
      script.refresh(keys.keyLeases(keyId), opts.leaseTtlMs, leases).catch((err) => opts.log.warn({ err }, 'renewing concurrency leases failed'));
    }
  }, Math.max(100, Math.floor(opts.leaseTtlMs / 3)));
  renew.unref();

  // The leases of calls that ended ride along with the key's next call; those no call picks up within
  // RELEASE_DELAY_MS leave in one ZREM per key.
  let ended = new Map<string, string[]>();
  let flushing: NodeJS.Timeout | undefined;
  const flushReleases = () => {
    flushing = undefined;
    const batch = ended;
    ended = new Map();
    for (const [keyId, leases] of batch) {
      redis.zrem(keys.keyLeases(keyId), ...leases).catch((err) => opts.log.warn({ err }, 'releasing concurrency leases failed; they expire'));
    }
  };
  const takeEnded = (keyId: string): string[] => {
    const leases = ended.get(keyId);
    if (!leases) return [];
    ended.delete(keyId);
    return leases;
  };

  const headersOf = (tier: BalanceTier, d: LimitDecision, held: number): Record<string, string> => ({
    'x-ratelimit-limit': String(tier.requestsPerMinute),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(Math.ceil(d.resetAtMs / 1000)),
    'x-concurrency-limit': String(tier.concurrentRequests),
    'x-concurrency-current': String(held),
  });

  /** Keys with a run in flight, and the calls waiting for each key's next run. */
  const running = new Set<string>();
  const waiting = new Map<string, Waiting[]>();

  const runFor = async (keyId: string) => {
    const batch = waiting.get(keyId)!;
    waiting.delete(keyId);
    running.add(keyId);
    const tier = batch[batch.length - 1]!.tier;
    const drop = takeEnded(keyId);
    try {
      const decisions = await script.takeMany(
        [
          { key: keys.keyRate(keyId, 'minute'), count: tier.requestsPerMinute, periodMs: 60_000 },
          { key: keys.keyRate(keyId, 'second'), count: tier.burstPerSecond, periodMs: 1_000 },
        ],
        batch.map((w) => ({ cost: w.cost, ids: [w.lease] })),
        { key: keys.keyLeases(keyId), ceiling: tier.concurrentRequests, ttlMs: opts.leaseTtlMs, drop },
      );
      batch.forEach((w, i) => w.resolve({ decision: decisions[i]!, tier }));
    } catch (err) {
      if (drop.length > 0) ended.set(keyId, [...drop, ...(ended.get(keyId) ?? [])]);
      flushing ??= setTimeout(flushReleases, RELEASE_DELAY_MS);
      for (const w of batch) w.reject(err);
    } finally {
      running.delete(keyId);
      if (waiting.has(keyId)) void runFor(keyId);
    }
  };

  const decide = (keyId: string, tier: BalanceTier, cost: number, lease: string) =>
    new Promise<{ decision: LimitDecision; tier: BalanceTier }>((resolve, reject) => {
      const queue = waiting.get(keyId);
      if (queue) queue.push({ cost, lease, tier, resolve, reject });
      else {
        waiting.set(keyId, [{ cost, lease, tier, resolve, reject }]);
        // The run starts after this turn of the event loop, so the key's calls read from the same packet go in it.
        if (!running.has(keyId)) setImmediate(() => void runFor(keyId));
      }
    });

  return {
    async admit(keyId, callerTier, cost) {
      const lease = randomUUID();
      const { decision, tier } = await decide(keyId, callerTier, cost, lease);
      if (decision.refused !== 0) {
        const limit = LIMIT_NAMES[decision.refused - 1]!;
        const retryAfter = retryAfterSeconds(decision.retryAfterMs);
        const headers = { ...headersOf(tier, decision, decision.leasesHeld), 'retry-after': String(retryAfter) };
        const what = limit === 'concurrent_requests' ? `${tier.concurrentRequests} concurrent requests` : limit === 'burst_per_second' ? `${tier.burstPerSecond} requests per second` : `${tier.requestsPerMinute} requests per minute`;
        throw new RateLimitRefusal(
          `This API key is over its limit of ${what} (${tier.name} tier); retry after ${retryAfter} s`,
          { limit, account_tier: tier.id, retry_after_seconds: retryAfter },
          headers,
        );
      }
      live.set(lease, keyId);
      return {
        headers: headersOf(tier, decision, decision.leasesHeld),
        release() {
          if (!live.delete(lease)) return;
          const leases = ended.get(keyId);
          if (leases) leases.push(lease);
          else ended.set(keyId, [lease]);
          flushing ??= setTimeout(flushReleases, RELEASE_DELAY_MS);
        },
      };
    },
    stop() {
      clearInterval(renew);
      if (flushing) clearTimeout(flushing);
      flushReleases();
    },
  };
}
