import { z } from 'zod';
import type { TrawlError } from '../../common/errors.js';

export const ErrorEnvelope = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code, e.g. VALIDATION_ERROR.' }),
    message: z.string(),
    request_id: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error', description: 'The error envelope every failure is answered with.' });

export interface ErrorBody {
  error: string;
  message: string;
  request_id: string;
  details?: Record<string, unknown>;
}

export function errorBody(err: TrawlError, requestId: string): ErrorBody {
  return {
    error: err.code,
    message: err.message,
    request_id: requestId,
    ...(err.details && Object.keys(err.details).length > 0 ? { details: err.details } : {}),
  };
}
