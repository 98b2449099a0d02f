import { create, fromBinary } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { BillingSchema, EscalationSchema } from '../../proto/gen/trawl/v1/billing_pb.js';
import { JobErrorSchema, JobSchema, ScrapeResultSchema, type Job } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { MICROCENTS_PER_CREDIT, TIER_PRICES } from '../billing/prices.js';

interface JobRow {
  id: string;
  status: string;
  url: string;
  mode: string;
  formats: string[];
  sync: boolean;
  current_tier: string | null;
  attempts: number;
  reserved_microcents: string;
  charged_microcents: string;
  refunded_microcents: string;
  result_key: string | null;
  error_code: string | null;
  error_message: string | null;
  error_http_status: number | null;
  error_details: Record<string, unknown> | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

interface AttemptViewRow {
  tier: string;
  status: string;
  result: string | null;
  credits_microcents: string;
  duration_ms: number | null;
}

/** Tier whose price the `savings` figure is measured against: what a browser-only scraper pays. */
const SAVINGS_BASELINE_TIER = '4';

const credits = (microcents: number) => microcents / MICROCENTS_PER_CREDIT;

/**
 * Builds the job record returned by polling and by Submit. Another
 * account's job is not found, exactly like a missing one.
 */
export async function loadJobView(deps: { pool: pg.Pool; redis: Redis }, jobId: string, accountId: string): Promise<Job | null> {
  const rows = await deps.pool.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND account_id = $2', [jobId, accountId]);
  const row = rows.rows[0];
  if (!row) return null;
  const attempts = await deps.pool.query<AttemptViewRow>(
    'SELECT tier, status, result, credits_microcents, duration_ms FROM job_attempts WHERE job_id = $1 ORDER BY attempt_number',
    [jobId],
  );
  const charged = Number(row.charged_microcents);
  const refunded = Number(row.refunded_microcents);
  const finished = attempts.rows.filter((a) => a.status === 'succeeded' || a.status === 'failed');
  const escalated = row.status === 'succeeded' && finished.length > 1;
  const billing = create(BillingSchema, {
    totalCredits: credits(charged),
    tierUsed: row.current_tier ?? '',
    escalations: finished.map((a) =>
      create(EscalationSchema, {
        tier: a.tier,
        result: a.result ?? a.status,
        credits: credits(Number(a.credits_microcents)),
        durationMs: BigInt(a.duration_ms ?? 0),
      }),
    ),
    savings: row.status === 'succeeded' ? credits(Math.max(0, (TIER_PRICES[SAVINGS_BASELINE_TIER] ?? 0) - charged)) : 0,
    optimizationSuggestion: escalated
      ? `This site needed tier ${row.current_tier}; send cost_controls.force_tier "${row.current_tier}" to skip the attempts that failed.`
      : undefined,
    refunded: row.status === 'failed',
    reason: row.status === 'failed' ? (row.error_code ?? undefined) : undefined,
    reservedMicrocents: BigInt(row.reserved_microcents),
    chargedMicrocents: BigInt(charged),
    refundedMicrocents: BigInt(refunded),
  });

  let result;
  if (row.status === 'succeeded' && row.result_key) {
    const stored = await deps.redis.getBuffer(row.result_key);
    if (stored) result = fromBinary(ScrapeResultSchema, stored);
  }
  return create(JobSchema, {
    jobId: row.id,
    status: row.status,
    url: row.url,
    mode: row.mode,
    formats: row.formats,
    sync: row.sync,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString(),
    completedAt: row.completed_at?.toISOString(),
    tier: row.current_tier ?? '',
    attempts: row.attempts,
    result,
    error: row.error_code
      ? create(JobErrorSchema, {
          code: row.error_code,
          message: row.error_message ?? '',
          httpStatus: row.error_http_status ?? 422,
          details: (row.error_details ?? {}) as never,
        })
      : undefined,
    billing,
  });
}
