import type { z } from 'zod';
import { TrawlError } from '../../common/errors.js';

export interface FieldIssue {
  field: string;
  message: string;
  code: string;
}

/** "advanced.cookies", "formats[0]": how a field is named in error details. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) out = typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key);
  return out;
}

/** The 400 for a list of field issues, led by the first. */
export function fieldsError(fields: FieldIssue[]): TrawlError {
  return new TrawlError('VALIDATION_ERROR', `${fields[0]!.field}: ${fields[0]!.message}`, { fields });
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
  if (!specific) return fieldsError(fields);
  return new TrawlError('SESSION_COOKIES_CONFLICT', `${specific.field}: ${specific.message}`, { fields, code: specific.code });
}

/** Parses a request part, answering 400 naming each bad field. */
export function parseOrRefuse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}
