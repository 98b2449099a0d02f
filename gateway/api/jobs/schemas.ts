import { z } from 'zod';
import { Billing } from '../shared/billing.js';
import { ScrapeResult } from '../scrape/schemas.js';

export const JobStatus = z.enum(['pending', 'running', 'succeeded', 'failed', 'rejected']);

export const JobRecord = z
  .object({
    job_id: z.uuid(),
    status: JobStatus.meta({ description: 'Stop polling at succeeded, failed or rejected.' }),
    url: z.string(),
    mode: z.string(),
    formats: z.array(z.string()),
    sync: z.boolean(),
    tier: z.string().meta({ description: 'The tier the job is on, or ended on.' }),
    attempts: z.number().int(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    poll_url: z.string(),
    result: ScrapeResult.omit({ version: true, billing: true, job_id: true }).nullable().meta({
      description: 'The scrape result once succeeded (kept 24 hours).',
    }),
    error: z
      .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
      .nullable(),
    billing: Billing,
    version: z.literal('v1'),
  })
  .meta({ id: 'Job' });

export const JobIdParam = z.object({ job_id: z.uuid().meta({ description: 'The job_id a scrape answered with.' }) });
