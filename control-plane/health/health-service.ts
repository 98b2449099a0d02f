import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ClickHouseClient } from '@clickhouse/client';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CheckResponseSchema, ComponentHealthSchema, HealthService } from '../../proto/gen/trawl/v1/health_pb.js';
import type { WorkerRegistry } from './worker-registry.js';

export interface HealthDeps {
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  clickhouse: ClickHouseClient;
  workers: WorkerRegistry;
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
  };
}
