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
  const first = specific ?? fields[0]!;
  return new TrawlError(specific ? 'SESSION_COOKIES_CONFLICT' : 'VALIDATION_ERROR', `${first.field}: ${first.message}`, {
    fields,
    ...(specific ? { code: specific.code } : {}),
  });
}

/**
 * Refuses strings holding U+0000 anywhere in a request body (Postgres text and
 * jsonb cannot store it), naming each field; `skip` lists top-level fields
 * that never reach Postgres. Iterative, so any nesting is safe.
 */
export function refuseNulCharacters(body: unknown, skip: readonly string[] = []): void {
  const fields: FieldIssue[] = [];
  const stack: Array<[unknown, ReadonlyArray<PropertyKey>]> = [[body, []]];
  while (stack.length > 0 && fields.length < 10) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) fields.push({ field: fieldPath(path) || 'body', message: 'must not contain NUL (U+0000) characters', code: 'invalid_string' });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, [...path, i]]));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k.includes('\u0000')) fields.push({ field: fieldPath([...path, k]), message: 'field names must not contain NUL (U+0000) characters', code: 'invalid_key' });
        else if (!(path.length === 0 && skip.includes(k))) stack.push([v, [...path, k]]);
      }
    }
  }
  if (fields.length > 0) throw new TrawlError('VALIDATION_ERROR', `${fields[0]!.field}: ${fields[0]!.message}`, { fields });
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
