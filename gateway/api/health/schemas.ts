import { z } from 'zod';

export const HealthStatus = z.object({ status: z.enum(['ok', 'unavailable']) }).meta({ id: 'HealthStatus' });
export const Readiness = z.object({ ready: z.boolean() }).meta({ id: 'Readiness' });
export const Liveness = z.object({ status: z.literal('alive') }).meta({ id: 'Liveness' });
const ComponentState = z.enum(['operational', 'down']);
export const ServiceStatus = z
  .object({
    status: z.enum(['operational', 'degraded', 'down']),
    components: z.object({
      api: ComponentState,
      database: ComponentState,
      cache: ComponentState,
      queue: ComponentState,
      analytics: ComponentState,
      worker: ComponentState,
    }),
    workers: z.record(z.string(), z.number().int()).meta({ description: 'Live workers per pool.' }),
    version: z.literal('v1'),
    timestamp: z.string(),
  })
  .meta({ id: 'ServiceStatus' });
export const JobsHealth = z
  .object({
    stuck_jobs: z.number().int().meta({ description: 'Pending or running jobs past their deadline, or running longer than any job may.' }),
    threshold: z.number().int().meta({ description: 'Stuck jobs from which the status is degraded.' }),
    status: z.enum(['healthy', 'degraded']),
    queue_depth: z.number().int().meta({ description: 'Tasks published and not yet delivered to a worker, over every pool.' }),
    message: z.string(),
  })
  .meta({ id: 'JobsHealth' });
export const ExtractionHealth = z
  .object({
    status: z.enum(['available', 'unavailable']).meta({ description: 'available while an extract-pool worker runs (POST /api/v1/extract).' }),
    workers: z.number().int().meta({ description: 'Extract-pool workers alive in the last heartbeat window.' }),
    llm_configured: z.boolean().meta({ description: 'An LLM provider is configured: extraction_prompt is accepted (otherwise 503 SERVICE_UNAVAILABLE).' }),
    message: z.string(),
  })
  .meta({ id: 'ExtractionHealth' });

export const OcrHealth = z
  .object({
    status: z.enum(['available', 'unavailable']),
    workers: z.number().int().meta({ description: 'Document-pool workers alive in the last heartbeat window.' }),
    languages: z.array(z.string()).meta({ description: 'OCR languages (Tesseract codes) every live document worker has data for; usable as advanced.ocr_language.' }),
    engine: z.string().meta({ description: 'The OCR engine and its version, as the workers report it; empty when none can run.' }),
    message: z.string(),
  })
  .meta({ id: 'OcrHealth' });
