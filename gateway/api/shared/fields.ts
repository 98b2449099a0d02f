import { HEADER_NAME, HEADER_VALUE, headersBytes, MAX_CUSTOM_HEADERS_BYTES, REFUSED_CALLER_HEADERS } from '../../../common/request-headers.js';
import { parse as parseSelector } from 'css-what';
import { z } from 'zod';
import { TrawlError } from '../../../common/errors.js';
import { validateExtractionSchema } from '../../../common/extraction-schema.js';
import { MAX_EXTRACTION_SCHEMA_BYTES, RAG_DEFAULT_CHUNK_OVERLAP, RAG_DEFAULT_CHUNK_SIZE } from '../../../common/limits.js';

/** Request fields shared by the scrape and extract routes. */

export const FORMATS = ['text', 'json', 'json_v2', 'html', 'markdown', 'rag'] as const;
export const MAX_URL_LENGTH = 8_192;

export const HttpUrl = z
  .string()
  .max(MAX_URL_LENGTH, `URLs are at most ${MAX_URL_LENGTH} characters`)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

/** A CSS selector (a browser tier waits for it), refused at once when it cannot be parsed; empty means none. */
export const CssSelector = z
  .string()
  .max(1_000)
  .refine((text) => {
    if (text === '') return true;
    try {
      parseSelector(text);
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid CSS selector, such as #content or div.price');

export const HttpsUrl = HttpUrl.refine((value) => value.startsWith('https://'), 'must be an https URL');

export const ExtractionSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    // The same check the workers apply, run here so a bad schema is refused before anything is queued or charged.
    try {
      validateExtractionSchema(value);
    } catch (err) {
      if (!(err instanceof TrawlError)) throw err;
      const field = typeof err.details?.['field'] === 'string' ? err.details['field'] : 'extraction_schema';
      ctx.addIssue({ code: 'custom', message: err.message, path: field.split('.').slice(1) });
    }
  })
  .meta({
    description: `A JSON Schema (an object with properties), at most ${MAX_EXTRACTION_SCHEMA_BYTES / 1024} KB; the response then carries filtered_content.`,
  });

/** A prompt with something in it besides whitespace. */
export const promptText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim() !== '', 'must not be blank');

/** Distinct output formats, at least one. */
export const formatList = (defaults: Array<(typeof FORMATS)[number]>) =>
  z
    .array(z.enum(FORMATS))
    .min(1)
    .refine((f) => new Set(f).size === f.length, 'formats must not repeat')
    .default(defaults);

export const RagOptions = z
  .object({
    chunk_size: z
      .number()
      .int()
      .min(32)
      .max(8_192)
      .optional()
      .meta({ description: `Tokens per chunk (cl100k). Default ${RAG_DEFAULT_CHUNK_SIZE}.` }),
    overlap: z
      .number()
      .int()
      .min(0)
      .max(4_096)
      .optional()
      .meta({ description: `Tokens repeated between chunks, smaller than chunk_size. Default ${RAG_DEFAULT_CHUNK_OVERLAP}.` }),
  })
  .strict()
  // Checked with the defaults applied: chunk_size 32-64 alone leaves the default overlap too large.
  .refine((r) => (r.overlap ?? RAG_DEFAULT_CHUNK_OVERLAP) < (r.chunk_size ?? RAG_DEFAULT_CHUNK_SIZE), {
    message: `overlap (default ${RAG_DEFAULT_CHUNK_OVERLAP}) must be smaller than chunk_size (default ${RAG_DEFAULT_CHUNK_SIZE}); send a smaller overlap`,
    path: ['overlap'],
  })
  .meta({ id: 'RagOptions' });

/** Cookie names are HTTP tokens; values leave out what would break the Cookie header (RFC 6265 4.1.1). */
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/;
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]{0,4096}$|^"[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]{0,4094}"$/;
const MAX_COOKIES = 100;

/** A map of cookie names to values, as sent to the target: inline (advanced.cookies) or stored (sessions). */
export const CookieMap = z
  .record(z.string().regex(COOKIE_NAME, 'cookie names are HTTP tokens (letters, digits and !#$%&\'*+-.^_`|~)'), z.string().regex(COOKIE_VALUE, 'cookie values may not hold spaces, quotes (except around the whole value), commas, semicolons, backslashes or control characters'))
  .refine((map) => Object.keys(map).length <= MAX_COOKIES, `at most ${MAX_COOKIES} cookies`)
  .meta({ description: `Cookie names to values (at most ${MAX_COOKIES}), sent to the target's origin only.` });

const MAX_REQUEST_HEADERS = 50;

/** Headers sent to the target with the request: HTTP tokens and single-line values, the reserved ones refused. */
export const RequestHeaders = z
  .record(z.string().regex(HEADER_NAME, 'header names are HTTP tokens'), z.string().regex(HEADER_VALUE, 'header values are one line of printable characters'))
  .superRefine((map, ctx) => {
    if (Object.keys(map).length > MAX_REQUEST_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_REQUEST_HEADERS} headers` });
    if (headersBytes(map) > MAX_CUSTOM_HEADERS_BYTES) ctx.addIssue({ code: 'custom', message: `headers are at most ${MAX_CUSTOM_HEADERS_BYTES / 1024} KB in all` });
    for (const name of Object.keys(map)) {
      if (REFUSED_CALLER_HEADERS.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by the service (hop-by-hop, framing or proxy header; cookies go in advanced.cookies)` });
      }
    }
  })
  .meta({
    description: `Request headers sent to the target by every tier (at most ${MAX_REQUEST_HEADERS}, ${MAX_CUSTOM_HEADERS_BYTES / 1024} KB in all); hop-by-hop, framing, proxy and cookie headers are refused.`,
  });
