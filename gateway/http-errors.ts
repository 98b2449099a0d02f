import type { z } from 'zod';
import { TrawlError } from '../common/errors.js';

export interface FieldIssue {
  field: string;
  message: string;
  code: string;
}

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/**
 * Turns zod issues into a 400 with one entry per field. An issue may carry a
 * more specific public code (e.g. SESSION_COOKIES_CONFLICT) in its params.
 */
export function validationError(error: z.ZodError, where: string): TrawlError {
  const fields: FieldIssue[] = error.issues.map((issue) => {
    const params = (issue as { params?: { code?: string } }).params;
    const message =
      issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message;
    return { field: fieldPath(issue.path) || where, message, code: params?.code ?? issue.code };
  });
  const specific = fields.find((f) => f.code === 'SESSION_COOKIES_CONFLICT');
  const first = fields[0]!;
  return new TrawlError('VALIDATION_ERROR', `${first.field}: ${first.message}`, {
    fields,
    ...(specific ? { code: specific.code } : {}),
  });
}

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
