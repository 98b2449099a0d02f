import type { ControlPlane } from '../control-plane-client.js';
import type { AnyRoute } from '../http/route.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { artifactRoutes } from './artifacts/routes.js';
import { authRoutes } from './auth/routes.js';
import { apiKeyRoutes } from './keys/routes.js';
import { billingRoutes } from './billing/routes.js';
import { docsRoutes } from './docs/routes.js';
import { extractRoutes } from './extract/routes.js';
import { healthRoutes } from './health/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { crawlRoutes } from './crawl/routes.js';
import { mapRoutes } from './map/routes.js';
import { legacyScrapeRoutes } from './scrape/legacy-routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { organizationRoutes } from './organizations/routes.js';
import { scrapeRoutes } from './scrape/routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { EVENT_DOCS } from './webhooks/event-payloads.js';
import { API_TAGS } from './tags.js';

export interface RouteDeps {
  controlPlane: ControlPlane;
  publicBaseUrl: string;
  /** Memory for the rendered answers of ended jobs (jobs/job-bodies.ts); absent: none kept. */
  jobBodiesBytes?: number;
}

/** Every documented route, grouped by area. */
export function apiRoutes(deps: RouteDeps): AnyRoute[] {
  return [
    ...scrapeRoutes(deps),
    ...legacyScrapeRoutes(deps),
    ...jobRoutes(deps),
    ...artifactRoutes(deps),
    ...extractRoutes(deps),
    ...mapRoutes(deps),
    ...sessionRoutes(deps),
    ...crawlRoutes(deps),
    ...healthRoutes(deps),
    // Before any /api/v1/api-keys/{key_id} route: it holds /api/v1/api-keys/legacy-status.
    ...authRoutes(deps),
    ...organizationRoutes(deps),
    ...oauthRoutes(deps),
    ...billingRoutes(deps),
    ...apiKeyRoutes(deps),
    ...webhookRoutes(deps),
  ];
}

export function openApiDocument(routes: readonly AnyRoute[], publicBaseUrl: string): Record<string, unknown> {
  return buildOpenApiDocument(routes, publicBaseUrl, API_TAGS, EVENT_DOCS);
}

/**
 * The route table: every route the gateway serves. The OpenAPI document is
 * built from the documented routes and served by the docs routes.
 */
export function routeTable(deps: RouteDeps): AnyRoute[] {
  const api = apiRoutes(deps);
  return [...api, ...docsRoutes(openApiDocument(api, deps.publicBaseUrl))];
}
