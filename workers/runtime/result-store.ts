import type { Redis } from 'ioredis';
import type { RedisKeys } from '../../common/redis-keys.js';

/**
 * Result bodies live in Redis, never in NATS messages. A finished attempt
 * also leaves a marker so a redelivered task is recognised and skipped.
 */
export function createResultStore(redis: Redis, opts: { keys: RedisKeys; ttlSeconds: number }) {
  const { keys, ttlSeconds } = opts;
  return {
    async put(key: string, body: Uint8Array): Promise<void> {
      await redis.set(key, Buffer.from(body.buffer, body.byteOffset, body.byteLength), 'EX', ttlSeconds);
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
