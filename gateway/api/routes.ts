import type { ControlPlane } from '../control-plane-client.js';
import type { AnyRoute } from '../http/route.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { docsRoutes } from './docs/routes.js';
import { extractRoutes } from './extract/routes.js';
import { healthRoutes } from './health/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { legacyScrapeRoutes } from './scrape/legacy-routes.js';
import { scrapeRoutes } from './scrape/routes.js';
import { API_TAGS } from './tags.js';

export interface RouteDeps {
  controlPlane: ControlPlane;
  publicBaseUrl: string;
}

/** Every documented route, grouped by area. */
export function apiRoutes(deps: RouteDeps): AnyRoute[] {
  return [...scrapeRoutes(deps), ...legacyScrapeRoutes(deps), ...jobRoutes(deps), ...extractRoutes(deps), ...healthRoutes(deps)];
}

export function openApiDocument(routes: readonly AnyRoute[], publicBaseUrl: string): Record<string, unknown> {
  return buildOpenApiDocument(routes, publicBaseUrl, API_TAGS);
}

/**
 * The route table: every route the gateway serves. The OpenAPI document is
 * built from the documented routes and served by the docs routes.
 */
export function routeTable(deps: RouteDeps): AnyRoute[] {
  const api = apiRoutes(deps);
  return [...api, ...docsRoutes(openApiDocument(api, deps.publicBaseUrl))];
}
