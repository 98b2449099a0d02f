import type { MapResult } from '../../proto/gen/trawl/v1/map_pb.js';

export interface ComparedUrl {
  url: string;
  sourceA?: string;
  sourceB?: string;
  depthA?: number;
  depthB?: number;
}

export interface MapComparison {
  added: ComparedUrl[];
  removed: ComparedUrl[];
  /** In both maps, found another way or at another depth. */
  changed: ComparedUrl[];
  unchanged: ComparedUrl[];
  /** Whether a sitemap was found in one map and not the other, or robots.txt names other sitemaps. */
  sitemapChanged: boolean;
}

/**
 * What changed from map A to map B, URL by URL (URLs are compared as listed:
 * both maps normalised them the same way). Each category keeps the order of
 * the map it comes from: added and changed in B's order, removed in A's.
 */
export function compareMaps(a: MapResult, b: MapResult): MapComparison {
  const inA = new Map(a.urls.map((u) => [u.url, u]));
  const inB = new Set(b.urls.map((u) => u.url));
  const out: MapComparison = { added: [], removed: [], changed: [], unchanged: [], sitemapChanged: false };
  for (const ub of b.urls) {
    const ua = inA.get(ub.url);
    if (!ua) out.added.push({ url: ub.url, sourceB: ub.source, depthB: ub.depth });
    else {
      const entry = { url: ub.url, sourceA: ua.source, sourceB: ub.source, depthA: ua.depth, depthB: ub.depth };
      (ua.source === ub.source && ua.depth === ub.depth ? out.unchanged : out.changed).push(entry);
    }
  }
  for (const ua of a.urls) if (!inB.has(ua.url)) out.removed.push({ url: ua.url, sourceA: ua.source, depthA: ua.depth });
  const sitemaps = (m: MapResult) => [...(m.robotsTxt?.sitemaps ?? [])].sort().join('\n');
  out.sitemapChanged = a.sitemapFound !== b.sitemapFound || sitemaps(a) !== sitemaps(b);
  return out;
}
