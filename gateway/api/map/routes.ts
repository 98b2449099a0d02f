import { SYNC_DEADLINE_MS } from '../../../common/limits.js';
import { toCredits, toMicrocents } from '../../../common/pricing.js';
import { MAP_TIER } from '../../../common/tiers.js';
import type { ComparedUrl, MapRecord as MapRecordMessage, MappedUrl as MappedUrlMessage } from '../../../proto/gen/trawl/v1/map_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions, syncTimeLeftMs } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { KEY_BUDGET_ERROR } from '../keys/errors.js';
import { CREDIT_HEADERS } from '../shared/billing.js';
import { EXPORT_MEDIA_TYPES, exportStream } from './export.js';
import { MapCompareQuery, MapComparison, MapExportQuery, MapIdParam, MapList, MapListQuery, MapRecord, MapRequest, MapResult } from './schemas.js';

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

/** A map as GET /api/v1/map/{map_id} answers it: the map with the request as run. */
function presentMapRecord(rec: MapRecordMessage) {
  return { ...presentMap(rec), config: rec.config ?? {} };
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
        503: 'NETWORK_ERROR or TARGET_UNAVAILABLE: the site answered nothing at all (refunded)',
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
    // Before /api/v1/map/{map_id}, which would take "compare" for an id.
    defineRoute({
      method: 'GET',
      path: '/api/v1/map/compare',
      operationId: 'compareMaps',
      summary: 'What changed between two maps of the same domain',
      description: 'URLs added in map B, removed since map A, changed (another source or depth) and unchanged, each category paged on its own with limit and offset; the summary always counts them all.',
      tags: ['Map'],
      auth: 'api_key',
      request: { query: MapCompareQuery },
      responses: { 200: { description: 'The comparison', schema: MapComparison } },
      errors: { 400: 'VALIDATION_ERROR also when the maps are of different domains', 404: "NOT_FOUND (either map unknown, or another account's)" },
      handler: async ({ ctx, query }) => {
        const res = await deps.controlPlane.map.compareMaps(
          { mapIdA: query.map_id_a, mapIdB: query.map_id_b, limit: query.limit, offset: query.offset },
          callOptions(ctx, 30_000),
        );
        const s = res.summary!;
        const both = (u: ComparedUrl) => ({ url: u.url, source_a: u.sourceA!, source_b: u.sourceB!, depth_a: u.depthA!, depth_b: u.depthB! });
        ctx.body = {
          map_id_a: res.mapIdA,
          map_id_b: res.mapIdB,
          domain: res.domain,
          created_at_a: res.createdAtA,
          created_at_b: res.createdAtB,
          summary: {
            added: s.added,
            removed: s.removed,
            unchanged: s.unchanged,
            changed: s.changed,
            total_a: s.totalA,
            total_b: s.totalB,
            sitemap_changed: s.sitemapChanged,
            url_delta: s.urlDelta,
          },
          added_urls: res.addedUrls.map((u) => ({ url: u.url, source_b: u.sourceB!, depth_b: u.depthB! })),
          removed_urls: res.removedUrls.map((u) => ({ url: u.url, source_a: u.sourceA!, depth_a: u.depthA! })),
          changed_urls: res.changedUrls.map(both),
          unchanged_urls: res.unchangedUrls.map(both),
          limit: res.limit,
          offset: res.offset,
          total_added: s.added,
          total_removed: s.removed,
          total_changed: s.changed,
          total_unchanged: s.unchanged,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/map/{map_id}/export',
      operationId: 'exportMap',
      summary: 'Download a map as JSON, CSV or a sitemap',
      description: 'Streamed. CSV columns: url, depth, source, relevance_score, title, description, last_modified. XML is a sitemaps.org urlset.',
      tags: ['Map'],
      auth: 'api_key',
      request: { params: MapIdParam, query: MapExportQuery },
      responses: {
        200: { description: 'The map as a download (Content-Disposition: attachment)', schema: MapRecord, textMediaTypes: ['text/csv', 'application/xml'] },
      },
      errors: { 404: "NOT_FOUND (unknown map, or another account's)" },
      handler: async ({ ctx, params, query }) => {
        const rec = await deps.controlPlane.map.getMap({ mapId: params.map_id }, callOptions(ctx, 30_000));
        const ext = query.format;
        ctx.set('Content-Disposition', `attachment; filename="map-${rec.mapId}.${ext}"`);
        ctx.type = EXPORT_MEDIA_TYPES[ext];
        ctx.body = ext === 'json' ? presentMapRecord(rec) : exportStream(ext, rec.result?.urls ?? []);
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
        ctx.body = presentMapRecord(rec);
      },
    }),
  ];
}
