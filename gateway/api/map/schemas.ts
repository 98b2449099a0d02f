import { z } from 'zod';
import { MAP_LIMITS } from '../../../common/limits.js';

const Pattern = z.string().min(1).max(MAP_LIMITS.maxPatternChars);
const Patterns = z
  .array(Pattern)
  .max(MAP_LIMITS.maxPatterns)
  .meta({ description: `Path globs: \`*\` one path segment, \`**\` any number; at most ${MAP_LIMITS.maxPatterns}.` });

export const MapRequest = z
  .object({
    url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'url must be an http or https URL')
      .meta({ description: 'Start URL; its host is the scope of the map.' }),
    max_pages: z
      .number()
      .int()
      .min(1)
      .max(MAP_LIMITS.maxPagesMax)
      .default(MAP_LIMITS.maxPagesDefault)
      .meta({ description: `URLs returned at most, 1 to ${MAP_LIMITS.maxPagesMax}.` }),
    max_depth: z
      .number()
      .int()
      .min(0)
      .max(MAP_LIMITS.maxDepthMax)
      .default(MAP_LIMITS.maxDepthDefault)
      .meta({ description: `Links followed from the start page, 0 to ${MAP_LIMITS.maxDepthMax}; 0 returns only the start page (and the sitemaps' URLs).` }),
    include_patterns: Patterns.default([]),
    exclude_patterns: Patterns.default([]).meta({ description: 'Path globs to leave out; exclude wins over include.' }),
    search: z
      .string()
      .min(1)
      .max(MAP_LIMITS.maxSearchChars)
      .optional()
      .meta({ description: 'Keeps the URLs whose path, anchor text or title (with include_metadata) match, best first, each with relevance_score.' }),
    sitemap: z
      .union([z.enum(['skip', 'include', 'only']), z.boolean()])
      .default('include')
      .transform((v) => (v === true ? 'include' : v === false ? 'skip' : v))
      .meta({ description: '`skip`, `include` (default) or `only` (the sitemaps alone, no page fetched for links); `true` means include, `false` skip.' }),
    sitemap_path: z
      .string()
      .max(MAP_LIMITS.maxPatternChars)
      .regex(/^\/\S*$/, 'sitemap_path must be a path starting with /')
      .optional()
      .meta({ description: 'Where the sitemap is, when not at /sitemap.xml or named in robots.txt.' }),
    include_metadata: z.boolean().default(false).meta({ description: 'Title, description and last modification per URL; slower.' }),
    include_subdomains: z.boolean().default(false),
    respect_robots: z.boolean().default(true).meta({ description: "Leaves out what robots.txt disallows for the service's user agent." }),
  })
  .strict()
  .meta({ id: 'MapRequest' });

const UrlMetadata = z
  .object({ title: z.string().nullable(), description: z.string().nullable(), last_modified: z.string().nullable() })
  .meta({ id: 'MapUrlMetadata' });

const MappedUrl = z
  .object({
    url: z.string(),
    depth: z.number().int().meta({ description: '0 for the start page; for a URL found only in a sitemap, its path depth below the start URL.' }),
    source: z.enum(['link', 'sitemap']),
    relevance_score: z.number().nullable().meta({ description: '0 to 1 with search, else null.' }),
    metadata: UrlMetadata.nullable().meta({ description: 'With include_metadata, else null.' }),
    title: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
  })
  .meta({ id: 'MappedUrl' });

const RobotsTxt = z
  .object({
    exists: z.boolean(),
    disallowed_paths: z.array(z.string()),
    crawl_delay: z.number().nullable(),
    sitemaps: z.array(z.string()),
  })
  .meta({ id: 'MapRobotsTxt' });

export const MapResult = z
  .object({
    map_id: z.string(),
    url: z.string(),
    domain: z.string(),
    total_urls: z.number().int(),
    urls: z.array(MappedUrl),
    sitemap_found: z.boolean(),
    robots_txt: RobotsTxt,
    credits_used: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'MapResult' });

export const MapRecord = MapResult.extend({
  config: z.record(z.string(), z.unknown()).meta({ description: 'The request as run, defaults applied.' }),
}).meta({ id: 'MapRecord' });

export const MapListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAP_LIMITS.listLimitMax).default(MAP_LIMITS.listLimitDefault),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
    domain: z.string().min(1).max(253).optional(),
  })
  .strict();

export const MapIdParam = z.object({ map_id: z.string().min(1).max(100) });

export const MapList = z
  .object({
    maps: z.array(
      z.object({
        map_id: z.string(),
        url: z.string(),
        domain: z.string(),
        total_urls: z.number().int(),
        credits_used: z.number().int(),
        sitemap_found: z.boolean(),
        created_at: z.string(),
      }),
    ),
    total: z.number().int(),
    page: z.number().int(),
    per_page: z.number().int(),
  })
  .meta({ id: 'MapList' });

export const MapCompareQuery = z
  .object({
    map_id_a: z.string().min(1).max(100),
    map_id_b: z.string().min(1).max(100),
    limit: z.coerce.number().int().min(1).max(MAP_LIMITS.compareLimitMax).default(MAP_LIMITS.compareLimitDefault),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  })
  .strict();

const Added = z.object({ url: z.string(), source_b: z.string(), depth_b: z.number().int() });
const Removed = z.object({ url: z.string(), source_a: z.string(), depth_a: z.number().int() });
const Both = z.object({ url: z.string(), source_a: z.string(), source_b: z.string(), depth_a: z.number().int(), depth_b: z.number().int() });

export const MapComparison = z
  .object({
    map_id_a: z.string(),
    map_id_b: z.string(),
    domain: z.string(),
    created_at_a: z.string(),
    created_at_b: z.string(),
    summary: z.object({
      added: z.number().int(),
      removed: z.number().int(),
      unchanged: z.number().int(),
      changed: z.number().int().meta({ description: 'In both maps, found another way (source) or at another depth.' }),
      total_a: z.number().int(),
      total_b: z.number().int(),
      sitemap_changed: z.boolean(),
      url_delta: z.number().int().meta({ description: 'total_b - total_a' }),
    }),
    added_urls: z.array(Added),
    removed_urls: z.array(Removed),
    changed_urls: z.array(Both),
    unchanged_urls: z.array(Both),
    limit: z.number().int(),
    offset: z.number().int(),
    total_added: z.number().int(),
    total_removed: z.number().int(),
    total_changed: z.number().int(),
    total_unchanged: z.number().int(),
  })
  .meta({ id: 'MapComparison' });

export const MapExportQuery = z
  .object({ format: z.enum(['json', 'csv', 'xml']).default('json').meta({ description: '`json` (default), `csv`, or `xml` (a sitemap).' }) })
  .strict();
