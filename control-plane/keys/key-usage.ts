import type { ClickHouseClient } from '@clickhouse/client';
import { isUuid } from '../../common/ids.js';

/**
 * Usage of one API key, read from the request_logs table that the analytics process owns (its schema: analytics/schema.ts).
 * ClickHouse 18.16 takes no query parameters, so every value is put into the
 * text here and nowhere else: ids must be UUIDs, numbers whole, and strings
 * go through `quote`. A request counts as failed when its status is 400 or
 * above.
 */
export interface KeyUsageScope {
  accountId: string;
  apiKeyId: string;
  days: number;
}

export interface KeyUsageSummary {
  totalRequests: number;
  successfulRequests: number;
  failedRequests: number;
  totalSpendMicrocents: number;
}

export interface TierUsageRow {
  tier: string;
  requests: number;
  spendMicrocents: number;
}

export interface ErrorUsageRow {
  errorCode: string;
  count: number;
  lastSeen: string;
}

export interface RequestFilter {
  status?: 'success' | 'failed';
  tier?: string;
  /** A substring of the target domain. */
  domain?: string;
}

export interface LoggedRequestRow {
  requestId: string;
  timestamp: string;
  method: string;
  route: string;
  status: number;
  errorCode: string;
  jobId: string;
  domain: string;
  tier: string;
  spendMicrocents: number;
  durationMs: number;
}

export interface TimeseriesRow {
  bucket: string;
  requests: number;
  errors: number;
  spendMicrocents: number;
}

/** A ClickHouse string literal. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function wholeNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

function scopeWhere(scope: KeyUsageScope): string {
  if (!isUuid(scope.accountId) || !isUuid(scope.apiKeyId)) throw new Error('account and key ids must be UUIDs');
  return `account_id = ${quote(scope.accountId)} AND api_key_id = ${quote(scope.apiKeyId)} AND ts >= now() - INTERVAL ${wholeNumber(scope.days, 'days')} DAY`;
}

function filterWhere(filter: RequestFilter): string {
  const parts: string[] = [];
  if (filter.status === 'success') parts.push('status < 400');
  if (filter.status === 'failed') parts.push('status >= 400');
  if (filter.tier) parts.push(`tier = ${quote(filter.tier)}`);
  if (filter.domain) parts.push(`position(target_domain, ${quote(filter.domain.toLowerCase())}) > 0`);
  return parts.map((p) => ` AND ${p}`).join('');
}

/** ClickHouse DateTime text (UTC) as ISO 8601. */
const iso = (text: string) => `${text.replace(' ', 'T')}Z`;

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow' });
  return (await result.json()) as T[];
}

type Counted = Record<string, string | number>;

export async function keyUsageSummary(client: ClickHouseClient, scope: KeyUsageScope): Promise<KeyUsageSummary> {
  const [row] = await rows<Counted>(
    client,
    `SELECT count() AS total, countIf(status < 400) AS ok, countIf(status >= 400) AS failed, sum(credits_microcents) AS spend
     FROM request_logs WHERE ${scopeWhere(scope)}`,
  );
  return {
    totalRequests: Number(row?.['total'] ?? 0),
    successfulRequests: Number(row?.['ok'] ?? 0),
    failedRequests: Number(row?.['failed'] ?? 0),
    totalSpendMicrocents: Number(row?.['spend'] ?? 0),
  };
}

/** Requests that ran on a tier (scrapes), by tier. */
export async function keyUsageByTier(client: ClickHouseClient, scope: KeyUsageScope): Promise<TierUsageRow[]> {
  const found = await rows<Counted>(
    client,
    `SELECT tier, count() AS requests, sum(credits_microcents) AS spend
     FROM request_logs WHERE ${scopeWhere(scope)} AND tier != '' GROUP BY tier ORDER BY tier`,
  );
  return found.map((r) => ({ tier: String(r['tier']), requests: Number(r['requests']), spendMicrocents: Number(r['spend']) }));
}

/** Failed requests by error code (the status when a failure carries no code), most frequent first. */
export async function keyUsageErrors(client: ClickHouseClient, scope: KeyUsageScope): Promise<ErrorUsageRow[]> {
  const found = await rows<Counted>(
    client,
    `SELECT if(error_code = '', concat('HTTP_', toString(status)), error_code) AS code, count() AS n, toString(max(ts)) AS last_seen
     FROM request_logs WHERE ${scopeWhere(scope)} AND status >= 400 GROUP BY code ORDER BY n DESC, code`,
  );
  return found.map((r) => ({ errorCode: String(r['code']), count: Number(r['n']), lastSeen: iso(String(r['last_seen'])) }));
}

/** One page of requests, newest first, with the number of requests matching. */
export async function keyRequests(
  client: ClickHouseClient,
  scope: KeyUsageScope,
  filter: RequestFilter,
  page: { page: number; pageSize: number },
): Promise<{ total: number; items: LoggedRequestRow[] }> {
  const where = `${scopeWhere(scope)}${filterWhere(filter)}`;
  const offset = (wholeNumber(page.page, 'page') - 1) * wholeNumber(page.pageSize, 'pageSize');
  const [counted] = await rows<Counted>(client, `SELECT count() AS total FROM request_logs WHERE ${where}`);
  const found = await rows<Counted>(
    client,
    `SELECT request_id, toString(ts) AS at, method, route, status, error_code, job_id, target_domain, tier, credits_microcents, duration_ms
     FROM request_logs WHERE ${where} ORDER BY ts_ms DESC, request_id LIMIT ${Math.max(0, offset)}, ${page.pageSize}`,
  );
  return {
    total: Number(counted?.['total'] ?? 0),
    items: found.map((r) => ({
      requestId: String(r['request_id']),
      timestamp: iso(String(r['at'])),
      method: String(r['method']),
      route: String(r['route']),
      status: Number(r['status']),
      errorCode: String(r['error_code']),
      jobId: String(r['job_id']),
      domain: String(r['target_domain']),
      tier: String(r['tier']),
      spendMicrocents: Number(r['credits_microcents']),
      durationMs: Number(r['duration_ms']),
    })),
  };
}

/** Requests, failures and spend per hour or day (UTC), every bucket of the window included, oldest first. */
export async function keyTimeseries(
  client: ClickHouseClient,
  scope: KeyUsageScope,
  granularity: 'hour' | 'day',
  nowMs: number = Date.now(),
): Promise<TimeseriesRow[]> {
  const startOf = granularity === 'hour' ? 'toStartOfHour' : 'toStartOfDay';
  const found = await rows<Counted>(
    client,
    `SELECT toString(${startOf}(ts)) AS bucket, count() AS requests, countIf(status >= 400) AS errors, sum(credits_microcents) AS spend
     FROM request_logs WHERE ${scopeWhere(scope)} GROUP BY bucket ORDER BY bucket`,
  );
  const byBucket = new Map(found.map((r) => [iso(String(r['bucket'])), r]));
  const step = granularity === 'hour' ? 3_600_000 : 86_400_000;
  const last = Math.floor(nowMs / step) * step;
  const first = Math.floor((nowMs - scope.days * 86_400_000) / step) * step;
  const series: TimeseriesRow[] = [];
  for (let at = first; at <= last; at += step) {
    const bucket = new Date(at).toISOString().replace('.000Z', 'Z');
    const r = byBucket.get(bucket);
    series.push({ bucket, requests: Number(r?.['requests'] ?? 0), errors: Number(r?.['errors'] ?? 0), spendMicrocents: Number(r?.['spend'] ?? 0) });
  }
  return series;
}
