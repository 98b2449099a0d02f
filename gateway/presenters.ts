import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { Billing } from '../proto/gen/trawl/v1/billing_pb.js';
import type { Job, ScrapeResult } from '../proto/gen/trawl/v1/scrape_pb.js';

export function pollUrl(jobId: string): string {
  return `/api/v1/jobs/${jobId}`;
}

export function presentBilling(billing: Billing | undefined, failed: boolean) {
  const b = billing;
  return {
    total_credits: b?.totalCredits ?? 0,
    tier_used: b?.tierUsed ?? '',
    escalations: (b?.escalations ?? []).map((e) => ({
      tier: e.tier,
      result: e.result,
      credits: e.credits,
      duration_ms: Number(e.durationMs),
    })),
    savings: b?.savings ?? 0,
    ...(b?.optimizationSuggestion ? { optimization_suggestion: b.optimizationSuggestion } : {}),
    ...(failed ? { refunded: b?.refunded ?? true, reason: b?.reason ?? '' } : {}),
  };
}

export function presentResult(result: ScrapeResult) {
  return {
    url: result.url,
    status_code: result.statusCode,
    content: result.content ? toJson(ValueSchema, result.content) : null,
    title: result.title,
    metadata: result.metadata ?? {},
    headers: result.headers,
    cached: result.cached,
    response_time_ms: Number(result.responseTimeMs),
    size_bytes: Number(result.sizeBytes),
    screenshot_url: result.screenshotUrl ?? null,
    pdf_url: result.pdfUrl ?? null,
    ...(result.filteredContent ? { filtered_content: result.filteredContent } : {}),
    extraction_method: result.extractionMethod,
    ...(result.modelUsed !== undefined ? { model_used: result.modelUsed } : {}),
    ...(result.rawHtml !== undefined ? { raw_html: result.rawHtml } : {}),
    final_url: result.finalUrl,
  };
}

export function presentJobError(job: Job) {
  if (!job.error) return null;
  return {
    code: job.error.code,
    message: job.error.message,
    details: job.error.details ?? {},
  };
}

export function presentJob(job: Job) {
  return {
    job_id: job.jobId,
    status: job.status,
    url: job.url,
    mode: job.mode,
    formats: job.formats,
    sync: job.sync,
    tier: job.tier,
    attempts: job.attempts,
    created_at: job.createdAt,
    started_at: job.startedAt ?? null,
    completed_at: job.completedAt ?? null,
    poll_url: pollUrl(job.jobId),
    result: job.result ? presentResult(job.result) : null,
    error: presentJobError(job),
    billing: presentBilling(job.billing, job.status === 'failed'),
    version: 'v1' as const,
  };
}
