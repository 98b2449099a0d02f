import type { Interceptor } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { createAccountTiers } from './account-tiers.js';
import { createDispatchEntitlement, UNLIMITED_DISPATCH, type DispatchEntitlement } from './dispatch-entitlement.js';
import { createKeyLimiter } from './key-limiter.js';
import { limitsInterceptor } from './limits-interceptor.js';

/** A concurrency lease lives this long unless renewed: how long a process that died keeps a slot. */
const LEASE_TTL_MS = 15_000;

export interface Limits {
  /** The per-API-key limits, for the control plane's interceptor chain; undefined when limits are off. */
  interceptor: Interceptor | undefined;
  /** Dispatch entitlement for the routes that dispatch jobs. */
  dispatch: DispatchEntitlement;
  /** Settles once the tiers reflect every balance change committed before the call (AccountTiers.caughtUp). */
  tiersCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** The limits of SPEC 8.1 in the control plane, or none when TRAWL_RATE_LIMITS is off. */
export function createLimits(deps: { enabled: boolean; pool: pg.Pool; redis: Redis; keys: RedisKeys; publicBaseUrl: string; log: Logger }): Limits {
  if (!deps.enabled) return { interceptor: undefined, dispatch: UNLIMITED_DISPATCH, tiersCaughtUp: async () => {}, stop: async () => {} };
  const tiers = createAccountTiers({ pool: deps.pool, log: deps.log });
  const limiter = createKeyLimiter(deps.redis, deps.keys, { leaseTtlMs: LEASE_TTL_MS, log: deps.log });
  return {
    interceptor: limitsInterceptor({ tiers, limiter }),
    dispatch: createDispatchEntitlement({ ...deps, tiers, docsUrl: `${deps.publicBaseUrl}/api/v1/docs` }),
    tiersCaughtUp: () => tiers.caughtUp(),
    async stop() {
      limiter.stop();
      await tiers.stop();
    },
  };
}
