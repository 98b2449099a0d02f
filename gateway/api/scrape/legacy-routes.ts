import type { z } from 'zod';
import type { ControlPlane } from '../../control-plane-client.js';
import { defineRoute, type AnyRoute, type Deprecation } from '../../http/route.js';
import { parseOrRefuse } from '../../http/validation-error.js';
import { LegacyJsRequest, LegacyLightRequest, LegacyOcrRequest, LegacyPdfRequest } from './legacy-schemas.js';
import { runScrape } from './run-scrape.js';
import { ScrapeAccepted, ScrapeRequest, ScrapeResult } from './schemas.js';

/** When the deprecated per-mode routes go away (at least 90 days after this release, SPEC 9.2). */
export const LEGACY_SUNSET = 'Sat, 01 May 2027 00:00:00 GMT';

const DEPRECATION: Deprecation = { sunset: LEGACY_SUNSET, replacement: 'POST /api/v1/scrape' };

interface LegacyRoute {
  name: string;
  schema: z.ZodType;
  /** What the route runs, for its description. */
  runs: string;
  toUnified(body: Record<string, unknown>): Record<string, unknown>;
}

/** What the old page-fetching routes (js and light) share: their fetch knobs, as unified fields. */
function pageFetchFields(b: Record<string, unknown>): Record<string, unknown> {
  return {
    url: b['url'], timeout: b['timeout'], force_refresh: b['force_refresh'], include_raw_html: b['include_raw_html'], formats: ['markdown'],
    follow_redirects: b['follow_redirects'], ...(b['headers'] ? { headers: b['headers'] } : {}),
  };
}

const LEGACY_ROUTES: LegacyRoute[] = [
  {
    name: 'js',
    schema: LegacyJsRequest,
    runs: 'mode "js" with advanced.render_js on the browser pool, waiting for the result (sync_policy wait_until_deadline)',
    // The old route answered with the result; a browser job is not handed off early.
    toUnified: (b) => ({
      ...pageFetchFields(b), mode: 'js', sync_policy: 'wait_until_deadline',
      wait_until: b['wait_until'], ...(b['wait_for'] ? { wait_for: b['wait_for'] } : {}),
      advanced: { render_js: true, ...(b['screenshot'] ? { screenshot: true } : {}) },
    }),
  },
  {
    name: 'light',
    schema: LegacyLightRequest,
    runs: 'mode "html"',
    toUnified: (b) => ({ ...pageFetchFields(b), mode: 'html' }),
  },
  {
    name: 'ocr',
    schema: LegacyOcrRequest,
    runs: 'mode "ocr" on the document pool, with `language` as advanced.ocr_language',
    toUnified: (b) => ({ url: b['url'], mode: 'ocr', force_refresh: b['force_refresh'], formats: ['text'], advanced: { ocr: true, ocr_language: b['language'] } }),
  },
  {
    name: 'pdf',
    schema: LegacyPdfRequest,
    runs: 'mode "pdf" on the document pool',
    toUnified: (b) => ({ url: b['url'], mode: 'pdf', force_refresh: b['force_refresh'], formats: [b['format']] }),
  },
];

/** The deprecated per-mode routes (SPEC 4.1, 9.6): each maps its old field set onto one unified scrape. */
export function legacyScrapeRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  return LEGACY_ROUTES.map((legacy) =>
    defineRoute({
      method: 'POST',
      path: `/api/v1/scrape/${legacy.name}`,
      operationId: `legacyScrape_${legacy.name}`,
      summary: 'Deprecated: use POST /api/v1/scrape',
      description:
        `Runs one unified scrape with ${legacy.runs}. Every answer carries Deprecation, Sunset and Link headers and a ` +
        '`warnings` array with a DEPRECATED_ENDPOINT entry.',
      tags: ['Deprecated'],
      auth: 'api_key',
      deprecation: DEPRECATION,
      request: { body: legacy.schema },
      responses: {
        200: { description: 'The scrape result plus warnings', schema: ScrapeResult },
        202: { description: 'Accepted; poll poll_url', schema: ScrapeAccepted },
      },
      errors: { 503: 'SERVICE_UNAVAILABLE when the mode needs a pool this deployment does not run' },
      handler: ({ ctx, body }) =>
        runScrape(ctx, deps.controlPlane, parseOrRefuse(ScrapeRequest, legacy.toUnified(body as Record<string, unknown>), 'body')),
    }),
  );
}
