import { z } from 'zod';
import type { ControlPlane } from '../../control-plane-client.js';
import { DeprecationWarning } from '../../http/deprecation.js';
import { defineRoute, type AnyRoute, type Deprecation } from '../../http/route.js';
import { parseOrRefuse } from '../../http/validation-error.js';
import { LegacyJsRequest, LegacyLightRequest, LegacyOcrRequest, LegacyPdfRequest } from './legacy-schemas.js';
import { runScrape } from './run-scrape.js';
import { DISPATCH_LIMIT_HEADERS } from '../../../common/rate-limit-headers.js';
import { SCRAPE_ERRORS, SCRAPE_RESULT_HEADERS } from './routes.js';
import { ScrapeAccepted, ScrapeError, ScrapeRequest, ScrapeResult } from './schemas.js';

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

/** The result of the deprecated routes: the unified one, plus the page's publication time and author (SPEC 2.3). */
const LegacyScrapeResult = ScrapeResult.extend({
  warnings: z.array(DeprecationWarning),
  published_at: z.string().nullable().meta({ description: "The page's publication time as the page states it (metadata.publishedTime); null when it gives none." }),
  author: z.string().nullable().meta({ description: "The page's author as its metadata names it (metadata.author); null when it names none." }),
}).meta({ id: 'LegacyScrapeResult' });

const LegacyScrapeError = ScrapeError.extend({ warnings: z.array(DeprecationWarning) }).meta({ id: 'LegacyScrapeError' });

function withArticleFields(result: Record<string, unknown>): Record<string, unknown> {
  const metadata = (result['metadata'] ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { ...result, published_at: text(metadata['publishedTime']), author: text(metadata['author']) };
}

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
        200: { description: 'The scrape result plus published_at, author and warnings', schema: LegacyScrapeResult, headers: SCRAPE_RESULT_HEADERS },
        202: { description: 'Accepted; poll poll_url', schema: ScrapeAccepted, headers: DISPATCH_LIMIT_HEADERS },
      },
      errors: { ...SCRAPE_ERRORS, 503: `${SCRAPE_ERRORS[503]}; SERVICE_UNAVAILABLE also when the mode needs a pool this deployment does not run` },
      errorSchema: LegacyScrapeError,
      handler: async ({ ctx, body }) => {
        await runScrape(ctx, deps.controlPlane, parseOrRefuse(ScrapeRequest, legacy.toUnified(body as Record<string, unknown>), 'body'));
        if (ctx.status === 200) ctx.body = withArticleFields(ctx.body as Record<string, unknown>);
      },
    }),
  );
}
