import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../common/connections.js';
import { runProcess, type ProcessContext } from '../../common/process-runner.js';
import type { Task } from '../../proto/gen/trawl/v1/work_pb.js';
import { createAttemptHandler, type AttemptWork } from './attempt.js';
import { startHeartbeat } from './heartbeat.js';
import { startPool } from './pool-runtime.js';
import { createReporter } from './reporter.js';
import { createResultStore } from './result-store.js';

/** Long enough for the longest task: a 300 s fetch plus processing. Anything left after it is handed back. */
const DRAIN_TIMEOUT_MS = 330_000;

export interface WorkerContext extends ProcessContext {
  redis: Redis;
  workerId: string;
}

/** What a pool brings: its two attempt steps, and whatever it must close once drained (its content pipeline). */
export interface PoolSetup<K extends NonNullable<Task['payload']['case']>, I> {
  work: AttemptWork<K, I>;
  close?(): Promise<void>;
  /** What the pool can do, announced with every heartbeat (read by the health routes). */
  capabilities?: Record<string, unknown>;
  /** Tasks run at once by this process; WORKER_CONCURRENCY by default (the browser pool has its own setting). */
  concurrency?: number;
}

/**
 * Bootstrap shared by every pool process: the process runner's connections,
 * Redis, the attempt template around the pool's steps, the pool runtime,
 * heartbeats, and a drain on SIGTERM/SIGINT.
 */
export async function runWorker<K extends NonNullable<Task['payload']['case']>, I>(
  pool: string,
  setup: (ctx: WorkerContext) => PoolSetup<K, I> | Promise<PoolSetup<K, I>>,
): Promise<void> {
  const workerId = `${pool}-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  await runProcess(
    pool,
    async (ctx) => {
      const { config, log, js, jsm, names, keys, nc } = ctx;
      const redis = connectRedis(config);
      const identity = { pool, workerId };
      const own = await setup({ ...ctx, redis, workerId });
      const handler = createAttemptHandler(
        {
          pool,
          report: createReporter(js, names, identity),
          results: createResultStore(redis, { keys, ttlSeconds: config.resultTtlSeconds }),
          keys,
        },
        own.work,
      );
      const running = await startPool(
        { js, jsm, names, log },
        { pool, concurrency: own.concurrency ?? config.worker.concurrency, ackWaitMs: config.worker.ackWaitMs, maxDeliver: config.worker.maxDeliver, drainTimeoutMs: DRAIN_TIMEOUT_MS },
        handler,
      );
      const heartbeat = startHeartbeat(nc, names, identity, own.capabilities ? { capabilities: own.capabilities } : {});
      log.info({ workerId, concurrency: own.concurrency ?? config.worker.concurrency }, `${pool} worker started`);
      return {
        async stop() {
          log.info({ inFlight: running.inFlight() }, 'draining');
          heartbeat.stop();
          await running.drain();
          await own.close?.().catch(() => undefined);
          await redis.quit().catch(() => undefined);
        },
      };
    },
    { natsName: workerId },
  );
}
