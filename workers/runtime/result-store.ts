import type { Redis } from 'ioredis';

/**
 * Result bodies live in Redis, never in NATS messages. A finished attempt
 * also leaves a marker so a redelivered task is recognised and skipped.
 */
export function createResultStore(redis: Redis, opts: { prefix: string; ttlSeconds: number }) {
  return {
    resultKey: (jobId: string, attemptId: string) => `${opts.prefix}result:${jobId}:${attemptId}`,
    async put(key: string, body: Uint8Array): Promise<void> {
      await redis.set(key, Buffer.from(body), 'EX', opts.ttlSeconds);
    },
    async markFinished(attemptId: string): Promise<void> {
      await redis.set(`${opts.prefix}attempt-finished:${attemptId}`, '1', 'EX', opts.ttlSeconds);
    },
    async isFinished(attemptId: string): Promise<boolean> {
      return (await redis.exists(`${opts.prefix}attempt-finished:${attemptId}`)) === 1;
    },
  };
}

export type ResultStore = ReturnType<typeof createResultStore>;
