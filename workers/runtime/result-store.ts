import type { Redis } from 'ioredis';
import type { RedisKeys } from '../../common/redis-keys.js';
import { encodeCachePointer } from '../../common/result-cache.js';

/**
 * Result bodies live in Redis, never in NATS messages. A finished attempt
 * also leaves a marker so a redelivered task is recognised and skipped.
 */
export function createResultStore(redis: Redis, opts: { keys: RedisKeys; ttlSeconds: number }) {
  const { keys, ttlSeconds } = opts;
  return {
    /**
     * Stores a result; with `cache`, also announces it in the response cache
     * (never for longer than the result itself is kept), in the same round trip.
     */
    async put(key: string, body: Uint8Array, cache?: { identity: string; ttlSeconds: number; tier: string }): Promise<void> {
      const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      if (!cache) {
        await redis.set(key, bytes, 'EX', ttlSeconds);
        return;
      }
      await redis
        .multi()
        .set(key, bytes, 'EX', ttlSeconds)
        .set(keys.resultCache(cache.identity), encodeCachePointer({ result_key: key, tier: cache.tier }), 'EX', Math.min(cache.ttlSeconds, ttlSeconds))
        .exec();
    },
    async markFinished(attemptId: string): Promise<void> {
      await redis.set(keys.attemptFinished(attemptId), '1', 'EX', ttlSeconds);
    },
    async isFinished(attemptId: string): Promise<boolean> {
      return (await redis.exists(keys.attemptFinished(attemptId))) === 1;
    },
  };
}

export type ResultStore = ReturnType<typeof createResultStore>;
