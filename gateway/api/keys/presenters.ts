import type {
  ApiKey as ApiKeyMessage,
  ApiKeyLimitsRecord as LimitsMessage,
  ApiKeyRequestPage as RequestPageMessage,
  ApiKeyTimeseries as TimeseriesMessage,
  ApiKeyUsage as UsageMessage,
  ApiKeyUsageByTier as ByTierMessage,
  ApiKeyUsageErrors as ErrorsMessage,
} from '../../../proto/gen/trawl/v1/api_keys_pb.js';

const orNull = (s: string) => (s === '' ? null : s);

export function presentKey(k: ApiKeyMessage) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.keyPrefix,
    ...(k.key !== undefined ? { key: k.key } : {}),
    scopes: k.scopes,
    environment: k.environment,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt ?? null,
  };
}

export function presentLimits(r: LimitsMessage) {
  const l = r.limits;
  return {
    api_key_id: r.apiKeyId,
    api_key_name: r.apiKeyName,
    limits: l
      ? {
          budget_limit_microcents: l.budgetLimitMicrocents === undefined ? null : Number(l.budgetLimitMicrocents),
          request_limit: l.requestLimit === undefined ? null : Number(l.requestLimit),
          reset_period: l.resetPeriod,
          enabled: l.enabled,
          current_period_start: l.currentPeriodStart,
          spent_microcents: Number(l.spentMicrocents),
          request_count: Number(l.requestCount),
        }
      : null,
    has_limits: r.hasLimits,
  };
}

export function presentUsage(u: UsageMessage) {
  return {
    api_key_id: u.apiKeyId,
    api_key_name: u.apiKeyName,
    total_requests: Number(u.totalRequests),
    successful_requests: Number(u.successfulRequests),
    failed_requests: Number(u.failedRequests),
    total_spend_microcents: Number(u.totalSpendMicrocents),
  };
}

export function presentByTier(u: ByTierMessage) {
  return {
    api_key_id: u.apiKeyId,
    days: u.days,
    tiers: u.tiers.map((t) => ({ tier: t.tier, requests: Number(t.requests), spend_microcents: Number(t.spendMicrocents) })),
  };
}

export function presentErrors(u: ErrorsMessage) {
  return {
    api_key_id: u.apiKeyId,
    days: u.days,
    total_errors: Number(u.totalErrors),
    errors: u.errors.map((e) => ({ error_code: e.errorCode, count: Number(e.count), last_seen: e.lastSeen })),
  };
}

export function presentRequests(p: RequestPageMessage) {
  return {
    api_key_id: p.apiKeyId,
    total: Number(p.total),
    page: p.page,
    page_size: p.pageSize,
    total_pages: p.totalPages,
    items: p.items.map((r) => ({
      request_id: r.requestId,
      timestamp: r.timestamp,
      method: r.method,
      route: r.route,
      status: r.status,
      error_code: orNull(r.errorCode),
      job_id: orNull(r.jobId),
      domain: orNull(r.domain),
      tier: orNull(r.tier),
      spend_microcents: Number(r.spendMicrocents),
      duration_ms: Number(r.durationMs),
    })),
  };
}

export function presentTimeseries(t: TimeseriesMessage) {
  return {
    api_key_id: t.apiKeyId,
    days: t.days,
    granularity: t.granularity,
    data: t.data.map((d) => ({ bucket: d.bucket, requests: Number(d.requests), errors: Number(d.errors), spend_microcents: Number(d.spendMicrocents) })),
  };
}
