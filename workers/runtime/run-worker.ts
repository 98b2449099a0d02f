import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { jetstream } from '@nats-io/jetstream';
import type { Redis } from 'ioredis';
import { loadConfig, type TrawlConfig } from '../../common/config.js';
import { connectNats, connectRedis, ensureStreams, jetstreamManager } from '../../common/connections.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { natsNames } from '../../common/nats-names.js';
import type { ScrapeTask } from '../../proto/gen/trawl/v1/work_pb.js';
import { createAttemptReporting, type AttemptReporting } from './attempt-reporting.js';
import { startHeartbeat } from './heartbeat.js';
import { startPool, type PoolHandler } from './pool-runtime.js';
import { createReporter } from './reporter.js';
import { createResultStore } from './result-store.js';
import { createPipelinePool, type PipelinePool } from '../pipeline/pipeline-pool.js';

/** Long enough for the longest task: a 300 s fetch plus processing. Anything left after it is handed back. */
const DRAIN_TIMEOUT_MS = 330_000;

export interface WorkerContext {
  config: TrawlConfig;
  log: Logger;
  redis: Redis;
  workerId: string;
  attempts: AttemptReporting;
  /** The content pipeline, on worker threads with a time budget per document. */
  pipeline: PipelinePool;
}

/**
 * Bootstrap shared by every pool process: connections, the pool runtime,
 * heartbeats, and a drain on SIGTERM/SIGINT. The pool supplies its handler.
 */
export async function runWorker(pool: string, buildHandler: (ctx: WorkerContext) => PoolHandler<ScrapeTask>): Promise<void> {
  const config = loadConfig();
  const log = createLogger(pool, config.logLevel);
  const workerId = `${pool}-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const redis = connectRedis(config);
  const nc = await connectNats(config, workerId);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const names = natsNames(config.natsPrefix);
  await ensureStreams(jsm, names);

  const identity = { pool, workerId };
  const attempts = createAttemptReporting({
    report: createReporter(js, names, identity),
    results: createResultStore(redis, { prefix: config.natsPrefix, ttlSeconds: config.resultTtlSeconds }),
  });
  const pipeline = createPipelinePool({
    ...(config.worker.pipelineThreads > 0 ? { threads: config.worker.pipelineThreads } : {}),
    budgetMs: config.worker.pipelineBudgetMs,
  });
  const running = await startPool(
    { nc, js, jsm, names, log },
    { pool, concurrency: config.worker.concurrency, ackWaitMs: config.worker.ackWaitMs, maxDeliver: config.worker.maxDeliver, drainTimeoutMs: DRAIN_TIMEOUT_MS },
    buildHandler({ config, log, redis, workerId, attempts, pipeline }),
  );
  const heartbeat = startHeartbeat(nc, names, identity);
  log.info({ workerId, concurrency: config.worker.concurrency }, `${pool} worker started`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, inFlight: running.inFlight() }, 'draining');
    heartbeat.stop();
    await running.drain();
    await pipeline.close().catch(() => undefined);
    await nc.drain().catch(() => undefined);
    await redis.quit().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
