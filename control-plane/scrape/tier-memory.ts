import type { Redis } from 'ioredis';
import type { RedisKeys } from '../../common/redis-keys.js';
import { isTier } from '../../common/tiers.js';

/**
 * Remembers, per account and host, the tier a scrape had to escalate to, so
 * the account's next scrapes of that host start there instead of paying for
 * the attempts that failed. The memory lasts `ttlSeconds` from the
 * escalation and is not renewed by scrapes that start from it: when it lapses
 * the next scrape probes from the cheapest tier again, so a site that
 * relaxes its defences gets cheap again. Per account, because what one
 * account's cookies, headers or proxy needed says nothing about another's.
 */
export interface TierMemory {
  /** The tier to start at for this URL, if one is remembered. */
  recall(accountId: string, url: string): Promise<string | undefined>;
  /** Records that a scrape of this URL succeeded on `tier` after escalating. */
  remember(accountId: string, url: string, tier: string): Promise<void>;
}

/** The host a URL's memory is kept under: its host name and any non-default port. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export function createTierMemory(deps: { redis: Redis; keys: RedisKeys; ttlSeconds: number }): TierMemory {
  const enabled = deps.ttlSeconds > 0;
  return {
    async recall(accountId, url) {
      const host = hostOf(url);
      if (!enabled || !host) return undefined;
      const tier = await deps.redis.get(deps.keys.tierMemory(accountId, host));
      return tier !== null && isTier(tier) ? tier : undefined;
    },
    async remember(accountId, url, tier) {
      const host = hostOf(url);
      if (!enabled || !host) return;
      await deps.redis.set(deps.keys.tierMemory(accountId, host), tier, 'EX', deps.ttlSeconds);
    },
  };
}
