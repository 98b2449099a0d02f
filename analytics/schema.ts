import type { ClickHouseClient } from '@clickhouse/client';

/**
 * The request_logs table: MergeTree partitioned by day and ordered by account
 * and time, so per-account dashboards read one contiguous range. Written for
 * ClickHouse 18.16 and later (plain DateTime, no LowCardinality).
 */
export async function ensureAnalyticsSchema(client: ClickHouseClient, database: string): Promise<void> {
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`unsupported ClickHouse database name "${database}"`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}.request_logs (
      ts DateTime,
      ts_ms UInt64,
      request_id String,
      account_id String,
      api_key_id String,
      method String,
      route String,
      path String,
      status UInt16,
      duration_ms UInt32,
      error_code String,
      job_id String,
      target_domain String,
      tier String,
      credits_microcents Int64,
      bytes_in UInt64,
      bytes_out UInt64,
      user_agent String,
      client_ip String,
      source String
    ) ENGINE = MergeTree
    PARTITION BY toYYYYMMDD(ts)
    ORDER BY (account_id, ts, request_id)`,
  });
}
