import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { TrawlConfig } from './config.js';

export async function connectNats(config: TrawlConfig, name: string): Promise<NatsConnection> {
  // Without async traces a request (every JetStream publish) does not build an Error up front to keep its stack.
  return connect({ servers: config.natsUrl, name, maxReconnectAttempts: -1, noAsyncTraces: true });
}

export function connectRedis(config: TrawlConfig): Redis {
  return new Redis(config.redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
}

export function createPgPool(config: TrawlConfig, max = 10): pg.Pool {
  return new pg.Pool({ connectionString: config.databaseUrl, max });
}

export function createClickHouse(config: TrawlConfig, database?: string): ClickHouseClient {
  return createClient({ url: config.clickhouseUrl, database: database ?? config.clickhouseDatabase, request_timeout: 10_000 });
}
