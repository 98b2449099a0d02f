import picomatch from 'picomatch';
// The discovery modules are pure functions over strings (no I/O): the frontier
// applies the same normalisation, scope, glob and robots rules as map.
import { pathDepthFrom } from '../../workers/discovery/crawl-depth.js';
import { DomainScope } from '../../workers/discovery/domain-scope.js';
import { anchoredPattern, matchablePath, PathFilter } from '../../workers/discovery/path-globs.js';
import { RobotsTxt, robotsProductToken, type RobotsPolicy } from '../../workers/discovery/robots-txt.js';
import { normalizeUrl } from '../../workers/discovery/url-normalizer.js';

/** The start request as the gateway validated it (SPEC 2.10, snake_case, defaults applied). */
export interface CrawlConfig {
  url: string;
  max_pages: number;
  max_depth: number;
  include_patterns?: string[] | null;
  exclude_patterns?: string[] | null;
  formats?: string[] | null;
  extraction_schema?: Record<string, unknown> | null;
  extraction_profile?: string | null;
  respect_robots: boolean;
  include_subdomains: boolean;
  sitemap: 'include' | 'skip' | 'only';
  sitemap_path?: string | null;
  cache: boolean;
  cache_ttl: number;
  force_refresh: boolean;
  headers?: Record<string, string> | null;
  storage: string;
  advanced?: { render_js?: boolean; screenshot?: boolean; use_proxy?: boolean; wait_for?: string | null; timeout?: number } | null;
  cost_controls?: { max_credits?: number; max_tier?: string; force_tier?: string } | null;
  priority?: { keywords?: string[]; boost_patterns?: string[]; demote_patterns?: string[] } | null;
  budget?: Record<string, number> | null;
  [field: string]: unknown;
}

/** The catch-all budget pattern. */
export const BUDGET_CATCH_ALL = '*';

/** A URL the frontier keeps: its normal form, host, score and budget pattern. */
export interface FrontierUrl {
  url: string;
  host: string;
  score: number;
  budgetKey: string | null;
}

/** Score weights: keywords in the URL raise it, boost patterns raise it, demote patterns lower it. */
const BASE_SCORE = 0.5;
const KEYWORD_WEIGHT = 0.3;
const BOOST_WEIGHT = 0.2;
const DEMOTE_WEIGHT = 0.4;

/**
 * What the frontier decides about one crawl's URLs: normal form, scope
 * (host, subdomains), include/exclude globs on the path, robots.txt, the
 * priority score and the budget pattern. Built once per crawl and kept.
 */
export class CrawlRules {
  private readonly scope: DomainScope;
  private readonly paths: PathFilter;
  private readonly robots: RobotsPolicy | null;
  private readonly keywords: string[];
  private readonly boost: Array<(path: string) => boolean>;
  private readonly demote: Array<(path: string) => boolean>;
  private readonly budget: Array<{ key: string; matches: (path: string) => boolean }>;

  constructor(
    readonly config: CrawlConfig,
    robotsTxt: string | null,
    userAgent: string,
  ) {
    this.scope = new DomainScope(config.url, { includeSubdomains: config.include_subdomains });
    this.paths = new PathFilter({ include: config.include_patterns, exclude: config.exclude_patterns });
    this.robots = config.respect_robots && robotsTxt !== null ? RobotsTxt.parse(robotsTxt).forAgent(robotsProductToken(userAgent)) : null;
    this.keywords = (config.priority?.keywords ?? []).map((k) => k.toLowerCase()).filter(Boolean);
    const glob = (pattern: string) => picomatch(anchoredPattern(pattern), { dot: true });
    this.boost = (config.priority?.boost_patterns ?? []).map(glob);
    this.demote = (config.priority?.demote_patterns ?? []).map(glob);
    // Longest pattern first: the first that matches is the longest match.
    this.budget = Object.keys(config.budget ?? {})
      .sort((a, b) => b.length - a.length)
      .map((key) => ({ key, matches: key === BUDGET_CATCH_ALL ? () => true : glob(key) }));
  }

  /** Seconds robots.txt asks between requests, when it does and is respected. */
  get crawlDelaySeconds(): number | null {
    return this.robots?.crawlDelay ?? null;
  }

  /** The frontier entry for a URL, or null when the crawl does not visit it. */
  admit(raw: string, base?: string): FrontierUrl | null {
    const url = normalizeUrl(raw, base);
    if (url === null || !this.scope.contains(url) || !this.paths.allows(url)) return null;
    if (this.robots && !this.robots.isAllowed(url)) return null;
    const path = matchablePath(url);
    return { url, host: new URL(url).host, score: this.score(url, path), budgetKey: this.budget.find((b) => b.matches(path))?.key ?? null };
  }

  /** The start URL in normal form: admitted whatever the patterns say, since the crawl was asked to start there. */
  start(): FrontierUrl {
    const url = normalizeUrl(this.config.url) ?? this.config.url;
    const path = matchablePath(url);
    return { url, host: new URL(url).host, score: 1, budgetKey: this.budget.find((b) => b.matches(path))?.key ?? null };
  }

  /** Depth of a sitemap URL: its path depth below the start URL's folder. */
  sitemapDepth(url: string): number {
    return pathDepthFrom(this.config.url, url);
  }

  private score(url: string, path: string): number {
    let score = BASE_SCORE;
    if (this.keywords.length > 0) {
      const haystack = decodeURIComponentSafe(url).toLowerCase();
      score += (KEYWORD_WEIGHT * this.keywords.filter((k) => haystack.includes(k)).length) / this.keywords.length;
    }
    if (this.boost.some((m) => m(path))) score += BOOST_WEIGHT;
    if (this.demote.some((m) => m(path))) score -= DEMOTE_WEIGHT;
    return Math.round(Math.min(1, Math.max(0, score)) * 10_000) / 10_000;
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
