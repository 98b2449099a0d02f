import { SYNC_DEADLINE_MS } from '../../../common/limits.js';
import { toCredits, toMicrocents } from '../../../common/pricing.js';
import { MAP_TIER } from '../../../common/tiers.js';
import type { MapRecord as MapRecordMessage, MappedUrl as MappedUrlMessage } from '../../../proto/gen/trawl/v1/map_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions, syncTimeLeftMs } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { KEY_BUDGET_ERROR } from '../keys/errors.js';
import { CREDIT_HEADERS } from '../shared/billing.js';
import { MapIdParam, MapList, MapListQuery, MapRecord, MapRequest, MapResult } from './schemas.js';

function presentUrl(u: MappedUrlMessage) {
  const metadata = u.metadata
    ? { title: u.metadata.title ?? null, description: u.metadata.description ?? null, last_modified: u.metadata.lastModified ?? null }
    : null;
  return {
    url: u.url,
    depth: u.depth,
    source: u.source as 'link' | 'sitemap',
    relevance_score: u.relevanceScore ?? null,
    metadata,
    ...(metadata ? { title: metadata.title, description: metadata.description } : {}),
  };
}

function presentMap(rec: MapRecordMessage) {
  const result = rec.result;
  const robots = result?.robotsTxt;
  const urls = (result?.urls ?? []).map(presentUrl);
  return {
    map_id: rec.mapId,
    url: rec.url,
    domain: rec.domain,
    total_urls: urls.length,
    urls,
    sitemap_found: result?.sitemapFound ?? false,
    robots_txt: {
      exists: robots?.exists ?? false,
      disallowed_paths: robots?.disallowedPaths ?? [],
      crawl_delay: robots?.crawlDelay ?? null,
      sitemaps: robots?.sitemaps ?? [],
    },
    credits_used: Number(rec.creditsUsed),
    created_at: rec.createdAt,
  };
}

export function mapRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/map',
      operationId: 'createMap',
      summary: 'List the URLs of a site',
      description:
        "Finds a site's URLs from its robots.txt, its sitemaps and the links of its pages, breadth-first from the start URL, " +
        `within its host (and subdomains with include_subdomains). Synchronous: a map still running near the ${SYNC_DEADLINE_MS / 1000} s ` +
        'deadline answers with what it found by then. Costs 1 credit whatever the number of URLs; the map is kept in the history.',
      tags: ['Map'],
      auth: 'api_key',
      request: { body: MapRequest },
      responses: { 200: { description: 'The map', schema: MapResult, headers: CREDIT_HEADERS } },
      errors: {
        400: 'VALIDATION_ERROR (an invalid URL, conflicting parameters or malformed patterns), or URL_NOT_ALLOWED: the start URL is a private or reserved address (refunded)',
        402: `INSUFFICIENT_CREDITS (a map needs 1 credit) or ${KEY_BUDGET_ERROR}`,
        504: 'TIMEOUT (refunded)',
      },
      handler: async ({ ctx, body }) => {
        const state = ctx.state.trawl;
        state.targetUrl = body.url;
        const waitMs = Math.max(1_000, syncTimeLeftMs(state));
        const rec = await deps.controlPlane.map.createMap(
          {
            url: body.url,
            maxPages: body.max_pages,
            maxDepth: body.max_depth,
            includePatterns: body.include_patterns,
            excludePatterns: body.exclude_patterns,
            search: body.search,
            sitemap: body.sitemap,
            sitemapPath: body.sitemap_path,
            includeMetadata: body.include_metadata,
            includeSubdomains: body.include_subdomains,
            respectRobots: body.respect_robots,
            requestId: state.requestId,
          },
          callOptions(ctx, waitMs + 15_000),
        );
        state.jobId = rec.mapId;
        state.tier = MAP_TIER;
        const charged = Number(rec.creditsUsed);
        state.creditsMicrocents = toMicrocents(charged);
        ctx.set('X-Service-Credits', String(charged));
        ctx.set('X-Service-Credits-Remaining', String(toCredits(rec.balanceMicrocents)));
        ctx.body = presentMap(rec);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/map',
      operationId: 'listMaps',
      summary: "The account's maps, newest first",
      tags: ['Map'],
      auth: 'api_key',
      request: { query: MapListQuery },
      responses: { 200: { description: 'A page of the history', schema: MapList } },
      handler: async ({ ctx, query }) => {
        const res = await deps.controlPlane.map.listMaps({ limit: query.limit, offset: query.offset, domain: query.domain }, callOptions(ctx, 10_000));
        ctx.body = {
          maps: res.maps.map((m) => ({
            map_id: m.mapId,
            url: m.url,
            domain: m.domain,
            total_urls: m.totalUrls,
            credits_used: Number(m.creditsUsed),
            sitemap_found: m.sitemapFound,
            created_at: m.createdAt,
          })),
          total: res.total,
          page: Math.floor(query.offset / query.limit) + 1,
          per_page: query.limit,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/map/{map_id}',
      operationId: 'getMap',
      summary: 'One map with its configuration',
      tags: ['Map'],
      auth: 'api_key',
      request: { params: MapIdParam },
      responses: { 200: { description: 'The map', schema: MapRecord } },
      errors: { 404: "NOT_FOUND (unknown map, or another account's)" },
      handler: async ({ ctx, params }) => {
        const rec = await deps.controlPlane.map.getMap({ mapId: params.map_id }, callOptions(ctx, 10_000));
        ctx.body = { ...presentMap(rec), config: rec.config ?? {} };
      },
    }),
  ];
}
