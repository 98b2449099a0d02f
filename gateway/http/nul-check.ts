import { fieldPath, fieldsError, type FieldIssue } from './validation-error.js';

const MAX_REPORTED = 10;

/** A value met during the walk, with a link to where it sits so a path is built only for a reported field. */
interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit, lastKey?: string): string {
  const keys: Array<string | number> = lastKey === undefined ? [] : [lastKey];
  for (let v: Visit | null = visit; v && v.key !== null; v = v.parent) keys.push(v.key);
  return fieldPath(keys.reverse()) || 'body';
}

/**
 * Refuses strings holding U+0000 anywhere in a parsed request body (Postgres
 * text and jsonb cannot store it), naming each field; `skip` lists top-level
 * fields that never reach Postgres. Iterative and linear in the body's size.
 */
export function refuseNulCharacters(body: unknown, skip: readonly string[] = []): void {
  const fields: FieldIssue[] = [];
  const stack: Visit[] = [{ value: body, key: null, parent: null }];
  while (stack.length > 0 && fields.length < MAX_REPORTED) {
    const visit = stack.pop()!;
    const value = visit.value;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) fields.push({ field: pathOf(visit), message: 'must not contain NUL (U+0000) characters', code: 'invalid_string' });
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], key: i, parent: visit });
    } else if (value !== null && typeof value === 'object') {
      const top = visit.parent === null;
      for (const k of Object.keys(value)) {
        if (k.includes('\u0000')) {
          fields.push({ field: pathOf(visit, k), message: 'field names must not contain NUL (U+0000) characters', code: 'invalid_key' });
        } else if (!(top && skip.includes(k))) {
          stack.push({ value: (value as Record<string, unknown>)[k], key: k, parent: visit });
        }
      }
    }
  }
  if (fields.length > 0) throw fieldsError(fields);
}
