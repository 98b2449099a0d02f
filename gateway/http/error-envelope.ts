import { z } from 'zod';
import type { TrawlError } from '../../common/errors.js';

/** The `detail` of a dispatch refused over the account's entitlement (SPEC 7.4). */
const DispatchOverEntitlement = z
  .object({
    scope: z.enum(['global_concurrent', 'global_rate']).meta({ description: 'global_concurrent: jobs in flight; global_rate: admissions per minute.' }),
    domain: z.string().nullable(),
    limit: z.number().int(),
    in_flight: z.number().int(),
    requested: z.number().int(),
    accepted: z.number().int(),
    account_tier: z.string(),
    retry_after_seconds: z.number().int(),
  })
  .meta({ id: 'DispatchOverEntitlement' });

/** Codes whose details are the body's own top-level fields: dispatch over its entitlement answers {error, message, detail, docs_url} (SPEC 7.4). */
const TOP_LEVEL_DETAILS: ReadonlySet<string> = new Set(['rate_limit_exceeded']);

export const ErrorEnvelope = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code, e.g. VALIDATION_ERROR.' }),
    message: z.string(),
    request_id: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    detail: DispatchOverEntitlement.optional().meta({ description: 'Dispatch over its entitlement (error rate_limit_exceeded) only, in place of details.' }),
    docs_url: z.string().optional().meta({ description: 'Dispatch over its entitlement only: where the limits are described.' }),
  })
  .meta({ id: 'Error', description: 'The error envelope every failure is answered with.' });

export interface ErrorBody {
  error: string;
  message: string;
  request_id: string;
  details?: Record<string, unknown>;
  [field: string]: unknown;
}

export function errorBody(err: TrawlError, requestId: string): ErrorBody {
  if (TOP_LEVEL_DETAILS.has(err.code)) return { error: err.code, message: err.message, request_id: requestId, ...err.details };
  return {
    error: err.code,
    message: err.message,
    request_id: requestId,
    ...(err.details && Object.keys(err.details).length > 0 ? { details: err.details } : {}),
  };
}
