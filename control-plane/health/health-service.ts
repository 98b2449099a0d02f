import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ClickHouseClient } from '@clickhouse/client';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { JOB_DEADLINE_MAX_MS } from '../../common/limits.js';
import type { NatsNames } from '../../common/nats-names.js';
import { readDocumentCapabilities } from '../../common/document-capabilities.js';
import { DOCUMENT_POOL, EXTRACT_POOL } from '../../common/tiers.js';
import { CheckResponseSchema, ComponentHealthSchema, ExtractionHealthResponseSchema, HealthService, JobsHealthResponseSchema, OcrHealthResponseSchema } from '../../proto/gen/trawl/v1/health_pb.js';
import { callerOf, requireAdmin } from '../accounts/caller.js';
import type { WorkerRegistry } from './worker-registry.js';

export interface HealthDeps {
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  clickhouse: ClickHouseClient;
  workers: WorkerRegistry;
  jsm: JetStreamManager;
  names: NatsNames;
  /** An LLM provider is configured (TRAWL_LLM_BASE_URL): extraction_prompt is accepted. */
  llmConfigured: boolean;
}

/** Stuck jobs from which GET /api/v1/health/jobs answers degraded (SPEC 4.11). */
export const STUCK_JOBS_THRESHOLD = 5;

/**
 * Jobs still pending or running past their deadline (the sweeper fails those
 * within seconds, so any it leaves are stuck), or running longer than any job
 * may. Uses the partial index on open jobs.
 */
async function countStuckJobs(pool: pg.Pool): Promise<number> {
  const res = await pool.query<{ stuck: number }>(
    `SELECT count(*)::int AS stuck FROM jobs
     WHERE status IN ('pending', 'running')
       AND (deadline_at < now() OR (status = 'running' AND started_at < now() - make_interval(secs => $1)))`,
    [JOB_DEADLINE_MAX_MS / 1000],
  );
  return res.rows[0]!.stuck;
}

/** Tasks published and not yet delivered, over every worker pool's consumer of the work stream. */
async function queueDepth(jsm: JetStreamManager, names: NatsNames): Promise<number> {
  let depth = 0;
  for await (const consumer of jsm.consumers.list(names.workStream)) depth += consumer.num_pending;
  return depth;
}

const CHECK_TIMEOUT_MS = 2_000;

async function probe(name: string, check: () => Promise<unknown>) {
  const started = Date.now();
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS)),
    ]);
    return create(ComponentHealthSchema, { name, ok: true, latencyMs: BigInt(Date.now() - started) });
  } catch (err) {
    return create(ComponentHealthSchema, {
      name,
      ok: false,
      latencyMs: BigInt(Date.now() - started),
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

export function createHealthService(deps: HealthDeps): ServiceImpl<typeof HealthService> {
  return {
    async check() {
      const components = await Promise.all([
        probe('database', () => deps.pool.query('SELECT 1')),
        probe('cache', () => deps.redis.ping()),
        probe('queue', () => deps.nc.rtt()),
        probe('analytics', async () => {
          const res = await deps.clickhouse.ping();
          if (!res.success) throw res.error;
        }),
      ]);
      return create(CheckResponseSchema, {
        ok: components.every((c) => c.ok),
        components,
        liveWorkers: deps.workers.liveCounts(),
      });
    },

    async jobs() {
      const [stuck, depth] = await Promise.all([countStuckJobs(deps.pool), queueDepth(deps.jsm, deps.names)]);
      const degraded = stuck >= STUCK_JOBS_THRESHOLD;
      return create(JobsHealthResponseSchema, {
        stuckJobs: stuck,
        threshold: STUCK_JOBS_THRESHOLD,
        status: degraded ? 'degraded' : 'healthy',
        queueDepth: BigInt(depth),
        message: degraded
          ? `${stuck} jobs are stuck past their deadline or running too long (threshold ${STUCK_JOBS_THRESHOLD})`
          : stuck === 0
            ? 'No stuck jobs'
            : `${stuck} stuck jobs, below the threshold of ${STUCK_JOBS_THRESHOLD}`,
      });
    },

    extraction() {
      const workers = deps.workers.liveCounts()[EXTRACT_POOL] ?? 0;
      const llm = deps.llmConfigured ? 'LLM extraction (extraction_prompt) is configured' : 'LLM extraction (extraction_prompt) is not configured';
      return create(ExtractionHealthResponseSchema, {
        available: workers > 0,
        workers,
        llmConfigured: deps.llmConfigured,
        message: workers > 0 ? `${workers} extract worker${workers === 1 ? '' : 's'} running; ${llm}` : `No extract-pool worker is running; ${llm}`,
      });
    },

    ocr(_req, ctx) {
      requireAdmin(callerOf(ctx));
      const announced = deps.workers.capabilities(DOCUMENT_POOL).map(readDocumentCapabilities);
      const ready = announced.filter((c) => c !== null && c.ocr_engine !== '');
      // A language counts when every worker that reads images has it: any of them may get the task.
      const languages = ready.length === 0 ? [] : ready[0]!.ocr_languages.filter((l) => ready.every((c) => c!.ocr_languages.includes(l)));
      const available = ready.length > 0;
      return create(OcrHealthResponseSchema, {
        available,
        workers: announced.length,
        languages,
        engine: ready[0]?.ocr_engine ?? '',
        message: available
          ? `${ready.length} document worker${ready.length === 1 ? '' : 's'} can read images`
          : announced.length === 0
            ? 'No document-pool worker is running'
            : 'The document-pool workers cannot run OCR (the tesseract program is missing or failing)',
      });
    },
  };
}
