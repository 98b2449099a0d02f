import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { TrawlConfig } from './config.js';
import type { NatsNames } from './nats-names.js';

export async function connectNats(config: TrawlConfig, name: string): Promise<NatsConnection> {
  return connect({ servers: config.natsUrl, name, maxReconnectAttempts: -1 });
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

const DAY_NS = 24 * 3600 * 1e9;

/**
 * Creates the JetStream streams if missing. Idempotent: every process calls it
 * at start so any of them may come up first.
 */
export async function ensureStreams(jsm: JetStreamManager, names: NatsNames): Promise<void> {
  const wanted = [
    { name: names.workStream, subjects: [names.workSubject('*')], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.reportsStream, subjects: [names.reportsSubject], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.deadStream, subjects: [names.deadSubject('*')], retention: RetentionPolicy.Limits, max_age: 7 * DAY_NS },
    { name: names.logsStream, subjects: [names.logsSubject], retention: RetentionPolicy.Workqueue, max_age: 7 * DAY_NS },
  ];
  for (const stream of wanted) {
    try {
      await jsm.streams.info(stream.name);
    } catch {
      try {
        await jsm.streams.add({
          ...stream,
          storage: StorageType.File,
          discard: DiscardPolicy.Old,
          duplicate_window: 2 * 60 * 1e9,
        });
      } catch (err) {
        // Another process created it between our info and add.
        await jsm.streams.info(stream.name).catch(() => {
          throw err;
        });
      }
    }
  }
}

export { jetstreamManager };
