import type { IncomingMessage } from 'node:http';
import { TrawlError } from '../../common/errors.js';
import { decodeUtf8, hasBody, isJsonType, mediaTypeOf, readBodyBytes, readJsonBody, type JsonBody } from './json-body.js';
import { fieldsError } from './validation-error.js';

/** The request-body media types a route may take (RouteSpec.bodyTypes); JSON unless a route says otherwise. */
export type BodyType = 'json' | 'form';

export const BODY_MEDIA_TYPES: Readonly<Record<BodyType, string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

const FORM_TYPE = BODY_MEDIA_TYPES.form;

/** One name or value of form-urlencoded text: `+` is a space, percent escapes decode as UTF-8; a bad escape throws a 400. */
export function decodeFormComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    throw new TrawlError('VALIDATION_ERROR', 'The request body is not valid application/x-www-form-urlencoded (a bad percent escape)');
  }
}

/**
 * Parses application/x-www-form-urlencoded text into string fields: `+` is
 * a space, percent escapes must decode to UTF-8, empty pairs are skipped,
 * and a field sent twice is refused (RFC 6749 3.2 forbids repeated
 * parameters, and a repeat would otherwise be ambiguous).
 */
export function parseFormBody(text: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeFormComponent(pair.slice(eq + 1));
    if (fields.has(name)) throw fieldsError([{ field: name, message: 'sent more than once', code: 'duplicate_field' }]);
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

/**
 * A form body, read under the same encoding, size and idle limits as a JSON
 * one and decoded as strict UTF-8. Any field may hold U+0000 (%00), so the
 * NUL check always runs.
 */
export async function readFormBody(req: IncomingMessage, limitBytes: number): Promise<JsonBody> {
  const bytes = await readBodyBytes(req, limitBytes);
  return { value: parseFormBody(decodeUtf8(bytes)), scan: { mayHoldNul: true }, bytes };
}

/**
 * The body of a request in one of the media types its route takes, by its
 * Content-Type; other types are refused before a byte is read. Undefined
 * when the request has no body.
 */
export async function readRequestBody(req: IncomingMessage, limitBytes: number, types: readonly BodyType[] = ['json']): Promise<JsonBody | undefined> {
  if (!types.includes('form')) return readJsonBody(req, limitBytes);
  if (!hasBody(req)) return undefined;
  const contentType = req.headers['content-type'];
  if (mediaTypeOf(contentType) === FORM_TYPE) return readFormBody(req, limitBytes);
  if (types.includes('json') && isJsonType(contentType)) return readJsonBody(req, limitBytes);
  throw new TrawlError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${types.map((t) => BODY_MEDIA_TYPES[t]).join(' or ')}`);
}
