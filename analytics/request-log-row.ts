import type { RequestLogRecord } from '../common/request-log-codec.js';

export interface RequestLogRow {
  ts: string;
  ts_ms: number;
  request_id: string;
  account_id: string;
  api_key_id: string;
  method: string;
  route: string;
  path: string;
  status: number;
  duration_ms: number;
  error_code: string;
  job_id: string;
  target_domain: string;
  tier: string;
  credits_microcents: number;
  bytes_in: number;
  bytes_out: number;
  user_agent: string;
  client_ip: string;
  source: string;
}

/** ClickHouse 18.16 parses DateTime from 'YYYY-MM-DD hh:mm:ss' text; the server runs in UTC. */
function clickhouseDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export function toRow(log: RequestLogRecord): RequestLogRow {
  const ms = log.tsUnixMs;
  return {
    ts: clickhouseDateTime(ms),
    ts_ms: ms,
    request_id: log.requestId,
    account_id: log.accountId,
    api_key_id: log.apiKeyId,
    method: log.method,
    route: log.route,
    path: log.path,
    status: log.status,
    duration_ms: log.durationMs,
    error_code: log.errorCode,
    job_id: log.jobId,
    target_domain: log.targetDomain,
    tier: log.tier,
    credits_microcents: log.creditsMicrocents,
    bytes_in: log.bytesIn,
    bytes_out: log.bytesOut,
    user_agent: log.userAgent,
    client_ip: log.clientIp,
    source: log.source,
  };
}
