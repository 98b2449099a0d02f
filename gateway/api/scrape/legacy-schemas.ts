import { z } from 'zod';
import { CssSelector, HttpUrl, RequestHeaders } from '../shared/fields.js';
import { FetchTimeout, OCR_LANGUAGES, OCR_LANGUAGES_MESSAGE } from './schemas.js';

const legacyCommon = {
  url: HttpUrl,
  timeout: FetchTimeout,
  force_refresh: z.boolean().default(false),
};

/** The fields of the old page-fetching routes (js and light). */
const legacyPageFetch = {
  ...legacyCommon,
  method: z.literal('GET').default('GET').meta({ description: 'GET only: these routes fetch pages. Another method, with a body, goes through POST /api/v1/scrape.' }),
  headers: RequestHeaders.optional(),
  follow_redirects: z.boolean().default(true),
  include_raw_html: z.boolean().default(false),
};

/** The deprecated per-mode routes (SPEC 4.1, 9.6); each maps onto one unified scrape. */
export const LegacyJsRequest = z
  .object({
    ...legacyPageFetch,
    wait_for: CssSelector.optional(),
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
