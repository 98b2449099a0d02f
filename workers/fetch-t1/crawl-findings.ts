import { create } from '@bufbuild/protobuf';
import { extractLinks } from '../discovery/link-extractor.js';
import { RobotsTxt } from '../discovery/robots-txt.js';
import { collectSitemapUrls, sitemapCandidates } from '../discovery/sitemap-discovery.js';
import type { FetchedPage } from '../fetching/fetch-result.js';
import { decodeText } from '../fetching/charset.js';
import { CrawlFindingsSchema, type CrawlFindings, type CrawlPageOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import { fetchPage, type FetchConfig } from './fetcher.js';

/** Time allowed to each robots.txt and sitemap fetch of the discovery step. */
const DISCOVERY_FETCH_TIMEOUT_MS = 15_000;
/** Sitemap files read by the discovery step. */
const DISCOVERY_MAX_SITEMAP_FILES = 20;

const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

/** A body fetched behind the SSRF guard, or null when the target has none (any non-success). */
async function fetchBody(url: string, config: FetchConfig): Promise<Buffer | null> {
  const outcome = await fetchPage({ url, method: 'GET', timeoutMs: DISCOVERY_FETCH_TIMEOUT_MS }, config);
  return outcome.kind === 'ok' && outcome.statusCode < 300 ? outcome.body : null;
}

/**
 * What a crawl page task finds besides the content: the page's links and, on
 * the crawl's first page, robots.txt and the sitemap URLs (per `sitemap`:
 * skip reads none). The control plane filters, scores and enqueues them.
 */
export async function crawlFindings(options: CrawlPageOptions, page: FetchedPage, config: FetchConfig): Promise<CrawlFindings> {
  const findings = create(CrawlFindingsSchema, {});
  if (options.extractLinks && HTML_TYPES.has(page.contentType)) {
    const extracted = extractLinks(decodeText(page.body, page.charset), page.finalUrl);
    if (!extracted.robots.nofollow) findings.links = [...new Set(extracted.links.filter((l) => !l.nofollow).map((l) => l.url))];
  }
  if (!options.discover) return findings;
  findings.discovered = true;
  const origin = new URL(page.finalUrl).origin;
  let robotsSitemaps: readonly string[] = [];
  if (options.readRobots) {
    const body = await fetchBody(`${origin}/robots.txt`, config).catch(() => null);
    if (body) {
      findings.robotsFound = true;
      findings.robotsTxt = body.toString('utf8');
      robotsSitemaps = RobotsTxt.parse(body, { robotsUrl: `${origin}/robots.txt` }).sitemaps;
    }
  }
  if (options.sitemap !== 'skip') {
    const collected = await collectSitemapUrls(sitemapCandidates(page.finalUrl, robotsSitemaps, options.sitemapPath || null), (url) => fetchBody(url, config), {
      maxUrls: options.maxSitemapUrls,
      maxFiles: DISCOVERY_MAX_SITEMAP_FILES,
    });
    findings.sitemapFound = collected.read.length > 0;
    findings.sitemapUrls = collected.urls.map((entry) => entry.url);
  }
  return findings;
}
