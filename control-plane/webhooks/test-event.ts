import { randomUUID } from 'node:crypto';
import { JOB_EVENTS } from '../../common/event-types.js';

/**
 * The body of a subscription test (POST /user-webhooks/{id}/test): the
 * envelope of a real event of the type asked for, with `data.test` true and
 * sample values, so a receiver can run its real handler on it.
 */
export function testEventBody(type: string, now: Date = new Date()): string {
  const jobId = randomUUID();
  const at = now.toISOString();
  const samples: Record<string, Record<string, unknown>> = {
    [JOB_EVENTS.completed]: {
      job_id: jobId, batch_id: null, url: 'https://example.com/', status: 'succeeded',
      result: { status_code: 200, content: '# Example Domain', title: 'Example Domain', metadata: {} },
      billing: { total_credits: 1, tier_used: '1', escalations: [{ tier: '1', result: 'success', credits: 1 }] },
      timing: { queued_at: at, started_at: at, completed_at: at, duration_ms: 0 },
    },
    [JOB_EVENTS.failed]: {
      job_id: jobId, url: 'https://example.com/', status: 'failed',
      error: { code: 'TIMEOUT', message: 'The operation timed out', details: { last_tier: '1', attempts: 1 } },
      billing: { total_credits: 0, refunded: true, reason: 'TIMEOUT' },
    },
    [JOB_EVENTS.started]: { job_id: jobId, batch_id: null, url: 'https://example.com/', status: 'running', tier: '1', attempt: 1, started_at: at },
  };
  return JSON.stringify({ event: type, timestamp: at, data: { test: true, ...(samples[type] ?? {}) } });
}
