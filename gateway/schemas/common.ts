import { z } from 'zod';

export const ErrorEnvelope = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code, e.g. VALIDATION_ERROR.' }),
    message: z.string(),
    request_id: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error', description: 'The error envelope every failure is answered with.' });

export const Escalation = z
  .object({
    tier: z.string(),
    result: z.string().meta({ description: '"success", or the failure classification of that attempt (e.g. "blocked").' }),
    credits: z.number(),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'Escalation' });

export const Billing = z
  .object({
    total_credits: z.number(),
    tier_used: z.string(),
    escalations: z.array(Escalation),
    savings: z.number().meta({ description: 'Credits saved against running this request on the browser tier (4).' }),
    optimization_suggestion: z.string().optional(),
    refunded: z.boolean().optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'Billing' });

export const TIERS = ['1', '2', '3', '3.5', '4'] as const;
