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
