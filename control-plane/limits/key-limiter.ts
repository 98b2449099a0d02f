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
 * Per-API-key limits of SPEC 8.1: requests per minute and burst per second
 * (GCRA, writes cost two) and concurrent calls (leases), all decided by one
 * script run in Redis. The process renews the leases of its calls still in
 * progress every third of their time to live and drops each when its call
 * ends (those ending in one turn of the event loop together).
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

  // Leases released in one turn of the event loop leave Redis in one ZREM per key.
  let releasing = new Map<string, string[]>();
  const flushReleases = () => {
    const batch = releasing;
    releasing = new Map();
    for (const [keyId, leases] of batch) {
      redis.zrem(keys.keyLeases(keyId), ...leases).catch((err) => opts.log.warn({ err }, 'releasing concurrency leases failed; they expire'));
    }
  };

  const headersOf = (tier: BalanceTier, d: LimitDecision, held: number): Record<string, string> => ({
    'x-ratelimit-limit': String(tier.requestsPerMinute),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(Math.ceil(d.resetAtMs / 1000)),
    'x-concurrency-limit': String(tier.concurrentRequests),
    'x-concurrency-current': String(held),
  });

  return {
    async admit(keyId, tier, cost) {
      const lease = randomUUID();
      const decision = await script.take(
        [
          { key: keys.keyRate(keyId, 'minute'), count: tier.requestsPerMinute, periodMs: 60_000 },
          { key: keys.keyRate(keyId, 'second'), count: tier.burstPerSecond, periodMs: 1_000 },
        ],
        cost,
        { key: keys.keyLeases(keyId), ceiling: tier.concurrentRequests, ttlMs: opts.leaseTtlMs, ids: [lease] },
      );
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
          if (releasing.size === 0) setImmediate(flushReleases);
          const leases = releasing.get(keyId);
          if (leases) leases.push(lease);
          else releasing.set(keyId, [lease]);
        },
      };
    },
    stop() {
      clearInterval(renew);
    },
  };
}
