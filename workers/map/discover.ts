/**
 * Site discovery for the map pool: the URLs of one site, from its sitemaps
 * and from a breadth-first walk over its HTML pages, without scraping them.
 *
 * Order of work: robots.txt of the start URL's origin (always read, for the
 * `robots_txt` report; its rules apply when `respectRobots`), then the
 * sitemaps (unless `sitemap: 'skip'`), then the walk (unless
 * `sitemap: 'only'`), then, with `includeMetadata`, a fetch of every listed
 * page not fetched yet for its title and description.
 *
 * What is listed. Every URL once, by its normal form. A URL is listed when
 * it is in scope (the start URL's host, or with `includeSubdomains` any host
 * of its registrable domain), its path passes the include/exclude globs,
 * robots.txt of its origin allows it (with `respectRobots`; then `nofollow`
 * links are not followed either) and its depth is within `maxDepth`. The
 * start page is always first when it passes those filters; it is fetched for
 * its links even when the globs exclude it from the list. URLs are listed as
 * discovered: a page that could not be fetched stays in the list.
 *
 * Depth. The start page is 0, a link is one deeper than the page it is on,
 * a sitemap URL has the depth of its path below the start URL's folder. A
 * URL found both ways keeps the smaller depth; `source` tells where it was
 * found first (sitemaps are read before the walk, so a URL in a sitemap is a
 * `sitemap` URL). Sitemap URLs deeper than `maxDepth` are not listed unless
 * a link finds them within it, so `maxDepth: 0` answers the start page alone
 * whatever the sitemap holds. Sitemap URLs also seed the walk at their
 * depth: their pages are fetched for links like linked pages of that depth.
 *
 * The walk goes one depth at a time, fetching up to `concurrency` pages at
 * once; links are taken in page order within a depth, so the result does not
 * depend on which fetch answers first. Pages of depth `maxDepth` are not
 * fetched for links (their links would be too deep).
 *
 * Limits. At most `maxPages` URLs are listed; discovery stops once that many
 * are known. With `search`, each URL is scored with `relevanceScore` over
 * its path, the anchor texts of links to it and its title when known (a
 * fetched page's `<title>`, or a feed item's title), and discovery goes on
 * until `maxPages` URLs score above 0 (or {@link SEARCH_SCAN_MAX} URLs are
 * known); URLs scoring 0 are dropped, the rest sorted best first (ties keep
 * discovery order, so the start page leads only among equals) and cut at
 * `maxPages`. When the deadline passes or the signal aborts, fetches in
 * flight are abandoned and what was found until then is answered. Robots `Crawl-delay` is reported, not applied: the caller paces
 * requests to a host.
 */
import { linkDepth, pathDepthFrom, withinDepth } from '../discovery/crawl-depth.js';
import { DomainScope } from '../discovery/domain-scope.js';
import { extractLinks, type ExtractedPage } from '../discovery/link-extractor.js';
import { PathFilter } from '../../common/path-globs.js';
import { relevanceScore } from '../discovery/relevance.js';
import { RobotsPolicy, RobotsTxt, robotsProductToken } from '../discovery/robots-txt.js';
import { collectSitemapUrls, sitemapCandidates } from '../discovery/sitemap-discovery.js';
import type { SitemapEntry } from '../discovery/sitemap-parser.js';
import { normalizeUrl, NormalizedUrlSet } from '../../common/url-normalizer.js';
import { decodeText, detectCharset } from '../fetching/charset.js';

export interface MapOptions {
  /** Start URL (absolute http/https). */
  url: string;
  /** Most URLs returned. */
  maxPages: number;
  /** 0 = only the start page. */
  maxDepth: number;
  /** Path globs (`*` one segment, `**` recursive); none = every path. */
  includePatterns: string[];
  /** Path globs; exclude wins over include. */
  excludePatterns: string[];
  /** Relevance filter: adds relevance_score, keeps only matching URLs, sorted best first. */
  search?: string;
  sitemap: 'skip' | 'include' | 'only';
  /** Custom sitemap path; /sitemap.xml by default. */
  sitemapPath?: string;
  /** Title, description and last_modified per URL (pages are fetched for title and description). */
  includeMetadata: boolean;
  includeSubdomains: boolean;
  /** Obey robots.txt for `userAgent`. */
  respectRobots: boolean;
  userAgent: string;
}

export interface MappedUrl {
  url: string;
  depth: number;
  source: 'link' | 'sitemap';
  relevance_score: number | null;
  metadata: { title: string | null; description: string | null; last_modified: string | null } | null;
}

export interface MapOutcome {
  urls: MappedUrl[];
  sitemap_found: boolean;
  robots_txt: { exists: boolean; disallowed_paths: string[]; crawl_delay: number | null; sitemaps: string[] };
}

/** A GET of one URL: the bytes and what is known about them, or null when it failed (network, 4xx/5xx, refused by the SSRF guard). */
export type MapFetch = (
  url: string,
  signal: AbortSignal,
) => Promise<{ status: number; finalUrl: string; contentType: string; body: Buffer } | null>;

/** The most URLs discovered for a `search`, whatever `maxPages` is. */
export const SEARCH_SCAN_MAX = 10_000;
/** The most sitemap URLs read, whatever `maxPages` is (the sitemap protocol's limit for one file). */
export const SITEMAP_SCAN_MAX = 50_000;
/** Distinct anchor texts kept per URL for scoring. */
const MAX_ANCHORS = 10;

type FetchedBody = NonNullable<Awaited<ReturnType<MapFetch>>>;

interface Entry {
  url: string;
  depth: number;
  source: 'link' | 'sitemap';
  anchors: Set<string>;
  title: string | null;
  description: string | null;
  lastModified: string | null;
  /** A feed item's title, used when the page's own is unknown. */
  feedTitle: string | null;
  /** Fetched (or tried) already, for links or metadata. */
  fetched: boolean;
  /** Listed under another URL it redirected to. */
  removed: boolean;
}

function isHtml(contentType: string): boolean {
  return /html/i.test(contentType);
}

function looksLikeSitemap(body: Buffer): boolean {
  return /<(urlset|sitemapindex|rss|feed)[\s>]/i.test(body.subarray(0, 4096).toString('latin1'));
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function pageText(res: FetchedBody): string {
  return decodeText(res.body, detectCharset(res.body, res.contentType.toLowerCase()));
}

export async function discoverSite(
  opts: MapOptions,
  fetch: MapFetch,
  limits: { deadlineMs: number; concurrency: number; signal: AbortSignal },
): Promise<MapOutcome> {
  const requestedKey = normalizeUrl(opts.url);
  if (requestedKey === null) throw new TypeError(`Not an absolute http(s) URL: ${opts.url}`);
  /** The start URL: the one asked for, or where it redirects when that is another site. */
  let startKey: string = requestedKey;
  const maxPages = Math.max(0, Math.floor(opts.maxPages));
  const maxDepth = Math.max(0, Math.floor(opts.maxDepth));
  const search = opts.search?.trim() ? opts.search : null;
  const capacity = search ? Math.max(maxPages, SEARCH_SCAN_MAX) : maxPages;
  const concurrency = Math.max(1, Math.floor(limits.concurrency) || 1);

  // One controller ends everything: the deadline or the caller's signal.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (limits.signal.aborted) stop.abort();
  else limits.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(onAbort, Math.max(0, limits.deadlineMs - Date.now()));
  const stopped = new Promise<null>((resolve) => {
    if (stop.signal.aborted) resolve(null);
    else stop.signal.addEventListener('abort', () => resolve(null), { once: true });
  });

  /** A fetch that never throws and never outlives the deadline; null for anything but a 2xx answer. */
  /** Answers fetched ahead of their turn (the start page), handed out once. */
  const prefetched = new Map<string, FetchedBody>();
  const get = async (url: string): Promise<FetchedBody | null> => {
    if (stop.signal.aborted) return null;
    const early = prefetched.get(url);
    if (early) {
      prefetched.delete(url);
      return early;
    }
    try {
      const res = await Promise.race([fetch(url, stop.signal), stopped]);
      if (res === null || stop.signal.aborted || res.status < 200 || res.status >= 300) return null;
      return res;
    } catch {
      return null;
    }
  };

  try {
    let scope = new DomainScope(startKey, { includeSubdomains: opts.includeSubdomains });
    const paths = new PathFilter({ include: opts.includePatterns, exclude: opts.excludePatterns });
    const agent = robotsProductToken(opts.userAgent) || opts.userAgent;

    // robots.txt: the start origin's is always read; others (subdomains) when their URLs come up and rules apply.
    const readRobots = async (origin: string) => {
      const robotsUrl = `${origin}/robots.txt`;
      const res = await get(robotsUrl);
      return { res, txt: res ? RobotsTxt.parse(res.body, { robotsUrl }) : RobotsTxt.allowAll() };
    };
    let startOrigin = new URL(startKey).origin;
    let { res: robotsRes, txt: robotsTxt } = await readRobots(startOrigin);
    let startPolicy = robotsTxt.forAgent(agent);
    // The start page first, when links are to be walked from it: one that redirects to another site (not just to
    // www. or https) maps the site it lands on, with that site's robots.txt. Its answer serves the walk.
    if (opts.sitemap !== 'only' && maxDepth > 0 && (!opts.respectRobots || startPolicy.isAllowed(startKey))) {
      const first = await get(startKey);
      const landed = first ? normalizeUrl(first.finalUrl) : null;
      if (landed !== null && !scope.contains(landed)) {
        startKey = landed;
        scope = new DomainScope(startKey, { includeSubdomains: opts.includeSubdomains });
        startOrigin = new URL(startKey).origin;
        ({ res: robotsRes, txt: robotsTxt } = await readRobots(startOrigin));
        startPolicy = robotsTxt.forAgent(agent);
      }
      if (first && (!opts.respectRobots || startPolicy.isAllowed(startKey))) prefetched.set(startKey, first);
    }
    const policies = new Map<string, RobotsPolicy>([[startOrigin, startPolicy]]);
    const robotsReport = {
      exists: robotsRes !== null,
      disallowed_paths: startPolicy.disallowedPaths,
      crawl_delay: startPolicy.crawlDelay,
      sitemaps: [...robotsTxt.sitemaps],
    };

    const loadPolicies = async (urls: Iterable<string>): Promise<void> => {
      if (!opts.respectRobots) return;
      const missing = new Set<string>();
      for (const url of urls) {
        const origin = originOf(url);
        if (origin && !policies.has(origin)) missing.add(origin);
      }
      await Promise.all(
        [...missing].map(async (origin) => {
          const url = `${origin}/robots.txt`;
          const res = await get(url);
          // Read later than the deadline, an unknown file allows nothing: nothing of that origin is listed then.
          const txt = res ? RobotsTxt.parse(res.body, { robotsUrl: url }) : stop.signal.aborted ? RobotsTxt.disallowAll() : RobotsTxt.allowAll();
          policies.set(origin, txt.forAgent(agent));
        }),
      );
    };
    const robotsAllow = (url: string): boolean => {
      if (!opts.respectRobots) return true;
      const policy = policies.get(originOf(url) ?? '');
      return policy === undefined || policy.isAllowed(url);
    };
    /** Whether a URL other than the start page may be listed (depth aside). */
    const admissible = (url: string): boolean => scope.contains(url) && paths.allows(url) && robotsAllow(url);

    const seen = new NormalizedUrlSet();
    const byKey = new Map<string, Entry>();
    const order: Entry[] = [];
    let listed = 0;
    const add = (url: string, depth: number, source: Entry['source']): Entry => {
      const entry: Entry = {
        url,
        depth,
        source,
        anchors: new Set(),
        title: null,
        description: null,
        lastModified: null,
        feedTitle: null,
        fetched: false,
        removed: false,
      };
      byKey.set(url, entry);
      order.push(entry);
      listed++;
      return entry;
    };
    const scoreOf = (e: Entry): number =>
      relevanceScore(search ?? '', { path: new URL(e.url).pathname, title: e.title ?? e.feedTitle, anchorText: [...e.anchors].join('\n') || null });
    /** With `search`: the listed URLs scoring above 0 now (anchor texts and titles only add to a score). */
    const matching = new Set<Entry>();
    const rescore = (e: Entry): void => {
      if (search && !e.removed && scoreOf(e) > 0) matching.add(e);
    };
    const remove = (e: Entry): void => {
      e.removed = true;
      matching.delete(e);
      listed--;
    };
    const full = () => listed >= capacity || (search !== null && matching.size >= maxPages);

    seen.add(startKey);
    const startAllowed = robotsAllow(startKey);
    if (maxPages > 0 && scope.contains(startKey) && paths.allows(startKey) && startAllowed) rescore(add(startKey, 0, 'link'));

    // Sitemaps.
    let sitemapFound = false;
    /** Sitemap URLs too deep by their path, listed (as sitemap URLs) only if a link finds them within max_depth. */
    const deepSitemapUrls = new Map<string, SitemapEntry>();
    if (opts.sitemap !== 'skip' && !stop.signal.aborted && maxPages > 0) {
      const candidates = sitemapCandidates(startKey, robotsTxt.sitemaps, opts.sitemapPath);
      const collected = await collectSitemapUrls(
        candidates,
        async (url) => {
          const res = await get(url);
          if (res === null) return null;
          // A page served where a sitemap should be (a soft 404) is no sitemap.
          if (isHtml(res.contentType) && !looksLikeSitemap(res.body)) return null;
          return res.body;
        },
        {
          // Deeper URLs are read too (up to a bound): a link may find them at a depth that is listed.
          maxUrls: Math.min(SITEMAP_SCAN_MAX, Math.max(capacity * 4, 1_000)),
          concurrency,
          key: (url) => normalizeUrl(url),
          accept: (url) => {
            const key = normalizeUrl(url);
            return key !== null && (key === startKey || admissible(key));
          },
        },
      );
      sitemapFound = collected.read.length > 0;
      await loadPolicies(collected.urls.map((e) => e.url));
      for (const item of collected.urls) {
        const key = normalizeUrl(item.url)!;
        let entry = byKey.get(key);
        if (!entry) {
          if (seen.has(key) || !robotsAllow(key)) continue;
          const depth = pathDepthFrom(startKey, key);
          if (!withinDepth(depth, maxDepth)) {
            deepSitemapUrls.set(key, item);
            continue;
          }
          if (full()) continue;
          seen.add(key);
          entry = add(key, depth, 'sitemap');
        } else {
          entry.source = 'sitemap';
        }
        entry.lastModified ??= item.lastmod;
        entry.feedTitle ??= item.title;
        rescore(entry);
      }
    }

    /** Fetches pages `concurrency` at a time, handing each answer to `take` in list order; stops starting new ones when `enough` says so. */
    const fetchInOrder = async (
      urls: string[],
      take: (index: number, res: FetchedBody | null) => Promise<void>,
      enough: () => boolean,
    ): Promise<void> => {
      const results = new Map<number, FetchedBody | null>();
      let next = 0;
      let merged = 0;
      let chain = Promise.resolve();
      const drain = () => {
        chain = chain.then(async () => {
          while (results.has(merged)) {
            const res = results.get(merged)!;
            results.delete(merged);
            await take(merged++, res);
          }
        });
        return chain;
      };
      const worker = async () => {
        while (next < urls.length && !stop.signal.aborted && !enough()) {
          const index = next++;
          results.set(index, await get(urls[index]!));
          await drain();
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker));
      await chain;
    };

    const readPage = (entry: Entry | undefined, res: FetchedBody): ExtractedPage | null => {
      if (!isHtml(res.contentType)) return null;
      const page = extractLinks(pageText(res), res.finalUrl);
      if (entry) {
        entry.title = page.title;
        entry.description = page.description;
        rescore(entry);
      }
      return page;
    };

    /**
     * Where a fetched page ends up: the entry it is listed as (a page that
     * redirected to a URL listed already is listed once, under that URL), or
     * null when it left the scope and its links do not count.
     */
    const settle = (entry: Entry | undefined, res: FetchedBody, crawled: Set<string>): { target: Entry | undefined } | null => {
      const finalKey = normalizeUrl(res.finalUrl);
      if (finalKey === null || !scope.contains(finalKey)) return null;
      if (!entry || finalKey === entry.url) return { target: entry };
      const other = byKey.get(finalKey);
      if (other && !other.removed && other !== entry) {
        crawled.add(other.url);
        if (entry.url !== startKey) {
          remove(entry);
          other.depth = Math.min(other.depth, entry.depth);
          return { target: other };
        }
        // The start page stays first: the other listing goes.
        remove(other);
      } else if (!seen.add(finalKey)) {
        return { target: entry };
      } else if (!admissible(finalKey) && entry.url !== startKey) {
        return { target: entry };
      }
      entry.url = finalKey;
      byKey.set(finalKey, entry);
      crawled.add(finalKey);
      return { target: entry };
    };

    // The walk, one depth at a time.
    if (opts.sitemap !== 'only' && startAllowed && !stop.signal.aborted) {
      const crawled = new Set<string>();
      for (let depth = 0; depth < maxDepth && !stop.signal.aborted; depth++) {
        const level: Array<{ key: string; entry: Entry | undefined }> = [];
        if (depth === 0) level.push({ key: startKey, entry: byKey.get(startKey) });
        else for (const entry of order) if (!entry.removed && entry.depth === depth && !crawled.has(entry.url)) level.push({ key: entry.url, entry });
        if (level.length === 0) {
          if (!order.some((e) => !e.removed && e.depth > depth && e.depth < maxDepth)) break;
          continue;
        }
        if (full()) break;
        for (const item of level) crawled.add(item.key);
        const childDepth = linkDepth(depth);
        await fetchInOrder(
          level.map((item) => item.key),
          async (index, res) => {
            const { entry } = level[index]!;
            if (entry) entry.fetched = true;
            if (res === null || entry?.removed) return;
            const settled = settle(entry, res, crawled);
            if (!settled) return;
            const page = readPage(settled.target, res);
            if (!page || (opts.respectRobots && page.robots.nofollow)) return;
            const links = page.links.filter((l) => !(opts.respectRobots && l.nofollow) && scope.contains(l.url));
            await loadPolicies(links.map((l) => l.url));
            for (const link of links) {
              const key = normalizeUrl(link.url);
              if (key === null) continue;
              let child = byKey.get(key);
              if (child?.removed) continue;
              if (!child) {
                if (full() || !seen.add(key) || !admissible(key)) continue;
                const inSitemap = deepSitemapUrls.get(key);
                child = add(key, childDepth, inSitemap ? 'sitemap' : 'link');
                if (inSitemap) {
                  child.lastModified = inSitemap.lastmod;
                  child.feedTitle = inSitemap.title;
                }
              } else {
                child.depth = Math.min(child.depth, childDepth);
              }
              if (link.text && child.anchors.size < MAX_ANCHORS) child.anchors.add(link.text);
              rescore(child);
            }
          },
          // Within a depth, pages are only worth fetching while there is room for their links.
          () => full(),
        );
      }
    }

    // Metadata of listed pages not fetched yet.
    if (opts.includeMetadata && !stop.signal.aborted) {
      const pending = order.filter((e) => !e.removed && !e.fetched);
      await fetchInOrder(
        pending.map((e) => e.url),
        async (index, res) => {
          const entry = pending[index]!;
          entry.fetched = true;
          if (res) readPage(entry, res);
        },
        () => false,
      );
    }

    let results: MappedUrl[] = order
      .filter((e) => !e.removed)
      .map((e) => ({
        url: e.url,
        depth: e.depth,
        source: e.source,
        relevance_score: search ? scoreOf(e) : null,
        metadata: opts.includeMetadata ? { title: e.title ?? e.feedTitle, description: e.description, last_modified: e.lastModified } : null,
      }));
    if (search) {
      results = results
        .map((r, i) => ({ r, i }))
        .filter(({ r }) => r.relevance_score! > 0)
        .sort((a, b) => b.r.relevance_score! - a.r.relevance_score! || a.i - b.i)
        .map(({ r }) => r);
    }
    return { urls: results.slice(0, maxPages), sitemap_found: sitemapFound, robots_txt: robotsReport };
  } finally {
    clearTimeout(timer);
    limits.signal.removeEventListener('abort', onAbort);
  }
}
