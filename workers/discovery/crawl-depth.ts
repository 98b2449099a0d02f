/**
 * Depth of discovered URLs, counted from the start URL (depth 0). A URL found
 * as a link is one hop deeper than the page it was found on; a URL found in a
 * sitemap has no page above it, so its depth is the number of path segments
 * it has below the start URL's folder (URLs outside that folder count from
 * the root).
 */

/** The depth of a link found on a page of depth `parentDepth`. */
export function linkDepth(parentDepth: number): number {
  return parentDepth + 1;
}

/** Whether a URL at `depth` may be visited under `maxDepth` (0 = the start page only). */
export function withinDepth(depth: number, maxDepth: number): boolean {
  return depth <= maxDepth;
}

function segments(pathname: string): string[] {
  return pathname.split('/').filter((s) => s !== '');
}

/**
 * Path depth of `url` relative to `startUrl`: `/docs/` → `/docs/a/b` is 2,
 * the start URL itself 0, `/docs/` → `/blog/x` 2 (counted from the root).
 */
export function pathDepthFrom(startUrl: string, url: string): number {
  const start = new URL(startUrl);
  const target = new URL(url);
  const folder = segments(start.pathname.endsWith('/') ? start.pathname : start.pathname.replace(/[^/]*$/, ''));
  const own = segments(target.pathname);
  if (target.pathname === start.pathname) return 0;
  const inside = folder.every((s, i) => own[i] === s);
  return inside ? own.length - folder.length : own.length;
}
