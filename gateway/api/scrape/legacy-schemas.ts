import { z } from 'zod';
import { HttpUrl } from '../shared/fields.js';
import { FetchTimeout, OCR_LANGUAGES, OCR_LANGUAGES_MESSAGE } from './schemas.js';

// The unified fetch sends its own browser-like headers and always follows redirects (each hop checked by the
// SSRF guard); the old routes' knobs for these are refused rather than silently ignored.
const noCustomHeaders = z
  .record(z.string(), z.string())
  .refine((h) => Object.keys(h).length === 0, 'custom request headers are not supported; use POST /api/v1/scrape')
  .optional();
const alwaysFollowRedirects = z
  .boolean()
  .refine((v) => v, 'redirects are always followed; use POST /api/v1/scrape')
  .default(true);

const legacyCommon = {
  url: HttpUrl,
  timeout: FetchTimeout,
  force_refresh: z.boolean().default(false),
};

/** The fields of the old page-fetching routes (js and light). */
const legacyPageFetch = {
  ...legacyCommon,
  method: z.literal('GET').default('GET'),
  headers: noCustomHeaders,
  follow_redirects: alwaysFollowRedirects,
  include_raw_html: z.boolean().default(false),
};

/** The deprecated per-mode routes (SPEC 4.1, 9.6); each maps onto one unified scrape. */
export const LegacyJsRequest = z
  .object({
    ...legacyPageFetch,
    wait_for: z.string().max(1_000).optional(),
    screenshot: z.boolean().default(false),
    wait_until: z.enum(['load', 'domcontentloaded', 'networkidle']).default('networkidle'),
  })
  .strict()
  .meta({ id: 'LegacyJsRequest' });

export const LegacyLightRequest = z.object(legacyPageFetch).strict()
  .meta({ id: 'LegacyLightRequest' });

export const LegacyOcrRequest = z
  .object({ url: HttpUrl, language: z.string().regex(OCR_LANGUAGES, OCR_LANGUAGES_MESSAGE).default('eng'), force_refresh: z.boolean().default(false) })
  .strict()
  .meta({ id: 'LegacyOcrRequest' });

export const LegacyPdfRequest = z
  .object({ url: HttpUrl, format: z.enum(['markdown', 'text', 'html']).default('markdown'), force_refresh: z.boolean().default(false) })
  .strict()
  .meta({ id: 'LegacyPdfRequest' });
