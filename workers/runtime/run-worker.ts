import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../common/connections.js';
import { runProcess, type ProcessContext } from '../../common/process-runner.js';
import type { Task } from '../../proto/gen/trawl/v1/work_pb.js';
import { createAttemptHandler, type AttemptWork } from './attempt.js';
import { startHeartbeat } from './heartbeat.js';
import { startPool, type PoolHandler } from './pool-runtime.js';
import { createReporter } from './reporter.js';
import { createResultStore } from './result-store.js';

/** Long enough for the longest task: a 300 s fetch plus processing. Anything left after it is handed back. */
const DRAIN_TIMEOUT_MS = 330_000;

export interface WorkerContext extends ProcessContext {
  redis: Redis;
  workerId: string;
}

/** What a pool brings: its two attempt steps, and whatever it must close once drained (its content pipeline). */
export interface PoolSetup<K extends NonNullable<Task['payload']['case']>, I> extends Omit<PoolProcess<unknown>, 'handler'> {
  work: AttemptWork<K, I>;
}

/** What a pool process runs: the handler of its tasks, how many at once, and whatever it must close once drained. */
export interface PoolProcess<T> {
  handler: PoolHandler<T>;
  /** Tasks run at once by this process; WORKER_CONCURRENCY by default (the browser pools have their own setting). */
  concurrency?: number;
  close?(): Promise<void>;
  /** What the pool can do, announced with every heartbeat (read by the health routes). */
  capabilities?: Record<string, unknown>;
}

/**
 * Bootstrap shared by every pool process: the process runner's connections,
 * Redis, the pool runtime around the pool's handler, heartbeats, and a drain
 * on SIGTERM/SIGINT.
 */
export async function runPoolProcess<T>(pool: string, setup: (ctx: WorkerContext) => PoolProcess<T> | Promise<PoolProcess<T>>): Promise<void> {
  const workerId = `${pool}-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  await runProcess(
    pool,
    async (ctx) => {
      const { config, log, js, jsm, names, nc } = ctx;
      const redis = connectRedis(config);
      const identity = { pool, workerId };
      const own = await setup({ ...ctx, redis, workerId });
      const concurrency = own.concurrency ?? config.worker.concurrency;
      const running = await startPool(
        { js, jsm, names, log },
        { pool, concurrency, ackWaitMs: config.worker.ackWaitMs, maxDeliver: config.worker.maxDeliver, drainTimeoutMs: DRAIN_TIMEOUT_MS },
        own.handler,
      );
      const heartbeat = startHeartbeat(nc, names, identity, own.capabilities ? { capabilities: own.capabilities } : {});
      log.info({ workerId, concurrency }, `${pool} worker started`);
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

/** A pool of the attempt template: its two steps run for each task (the job's attempt). */
export async function runWorker<K extends NonNullable<Task['payload']['case']>, I>(
  pool: string,
  setup: (ctx: WorkerContext) => PoolSetup<K, I> | Promise<PoolSetup<K, I>>,
): Promise<void> {
  await runPoolProcess(pool, async (ctx) => {
    const { config, js, names, keys, redis, workerId } = ctx;
    const { work, ...rest } = await setup(ctx);
    const handler = createAttemptHandler(
      {
        pool,
        report: createReporter(js, names, { pool, workerId }),
        results: createResultStore(redis, { keys, ttlSeconds: config.resultTtlSeconds }),
        keys,
      },
      work,
    );
    return { handler, ...rest };
  });
}
