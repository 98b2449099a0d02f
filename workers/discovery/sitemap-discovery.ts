/**
 * Reading a site's sitemaps: where to look (the `sitemap_path`, default
 * `/sitemap.xml`, and the `Sitemap:` lines of robots.txt), and following
 * sitemap indexes down to page URLs. Fetching is the caller's: it passes a
 * function (the SSRF-guarded fetcher in production) that returns the body of
 * one sitemap or null when there is none.
 *
 * Bounded: at most `maxFiles` sitemap files are read, indexes are followed
 * `maxIndexDepth` levels deep (the protocol allows one; real sites nest a
 * little more), each file within {@link SITEMAP_LIMITS}, and reading stops
 * once `maxUrls` accepted URLs are collected. Each URL is kept once, first
 * occurrence wins.
 */
import { parseSitemap, type ParsedSitemap, type SitemapEntry, type SitemapLimits } from './sitemap-parser.js';

export const DEFAULT_SITEMAP_PATH = '/sitemap.xml';

/** Returns a sitemap's body, or null when it does not exist; may throw for network failures. */
export type SitemapFetcher = (url: string) => Promise<Uint8Array | AsyncIterable<Uint8Array> | null>;

export interface SitemapCollectionOptions {
  maxUrls: number;
  maxFiles?: number;
  maxIndexDepth?: number;
  /** Sitemap files fetched at the same time. */
  concurrency?: number;
  /** Which page URLs count (scope, patterns); the others are skipped and do not count. */
  accept?: (url: string) => boolean;
  /** The identity used to keep each URL once (a normaliser); the URL itself by default. */
  key?: (url: string) => string | null;
  limits?: Partial<SitemapLimits>;
}

export interface SitemapFailure {
  url: string;
  error: string;
}

export interface CollectedSitemaps {
  urls: SitemapEntry[];
  /** Sitemap files that existed and were read. */
  read: string[];
  failures: SitemapFailure[];
  /** Whether reading stopped at `maxUrls` or `maxFiles` with sitemaps or entries left. */
  truncated: boolean;
}

export const SITEMAP_COLLECTION_DEFAULTS = Object.freeze({ maxFiles: 100, maxIndexDepth: 2, concurrency: 4 });

/** The sitemap URLs to try for a site, custom path first, each once. */
export function sitemapCandidates(startUrl: string, robotsSitemaps: readonly string[] = [], sitemapPath?: string | null): string[] {
  const candidates = new Set<string>();
  try {
    candidates.add(new URL(sitemapPath || DEFAULT_SITEMAP_PATH, new URL(startUrl).origin).href);
  } catch {
    // An unusable sitemap_path leaves only the robots.txt sitemaps.
  }
  for (const url of robotsSitemaps) candidates.add(url);
  return [...candidates];
}

export async function collectSitemapUrls(
  candidates: readonly string[],
  fetchSitemap: SitemapFetcher,
  options: SitemapCollectionOptions,
): Promise<CollectedSitemaps> {
  const maxFiles = options.maxFiles ?? SITEMAP_COLLECTION_DEFAULTS.maxFiles;
  const maxIndexDepth = options.maxIndexDepth ?? SITEMAP_COLLECTION_DEFAULTS.maxIndexDepth;
  const concurrency = options.concurrency ?? SITEMAP_COLLECTION_DEFAULTS.concurrency;
  const accept = options.accept ?? (() => true);
  const keyOf = options.key ?? ((url: string) => url);

  const result: CollectedSitemaps = { urls: [], read: [], failures: [], truncated: false };
  const seenUrls = new Set<string>();
  const seenFiles = new Set<string>(candidates);
  let queue = candidates.map((url) => ({ url, depth: 0 }));
  let attempted = 0;

  const readOne = async (url: string): Promise<ParsedSitemap | null> => {
    try {
      const body = await fetchSitemap(url);
      return body === null ? null : await parseSitemap(body, { url, limits: options.limits });
    } catch (error) {
      result.failures.push({ url, error: (error as Error).message });
      return null;
    }
  };

  /** Takes one file's entries in order and returns the child sitemaps still to read. */
  const merge = (url: string, depth: number, parsed: ParsedSitemap) => {
    result.read.push(url);
    if (parsed.error) result.failures.push({ url, error: parsed.error });
    for (const entry of parsed.urls) {
      if (seenUrls.size >= options.maxUrls) {
        result.truncated = true;
        break;
      }
      const key = keyOf(entry.url);
      if (key === null || seenUrls.has(key) || !accept(entry.url)) continue;
      seenUrls.add(key);
      result.urls.push(entry);
    }
    if (depth >= maxIndexDepth) return [];
    const children = parsed.sitemaps.filter((s) => !seenFiles.has(s.url));
    for (const child of children) seenFiles.add(child.url);
    return children.map((child) => ({ url: child.url, depth: depth + 1 }));
  };

  // Files of one wave are fetched together and merged in queue order, so the result does not depend on timing.
  while (queue.length > 0 && seenUrls.size < options.maxUrls) {
    const room = maxFiles - attempted;
    if (room <= 0) break;
    const wave = queue.slice(0, Math.min(concurrency, room));
    queue = queue.slice(wave.length);
    attempted += wave.length;
    const parsed = await Promise.all(wave.map((file) => readOne(file.url)));
    wave.forEach((file, i) => {
      const sitemap = parsed[i];
      if (sitemap) queue.push(...merge(file.url, file.depth, sitemap));
    });
  }
  if (queue.length > 0) result.truncated = true;
  return result;
}
