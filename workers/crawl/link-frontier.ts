import { budgetMatcher, type CrawlConfig } from '../../common/crawl-config.js';
import { compilePathGlob, matchablePath, PathFilter } from '../../common/path-globs.js';
import { normalizeUrl } from '../../common/url-normalizer.js';
import { DomainScope } from '../discovery/domain-scope.js';
import type { ExtractedLink } from '../discovery/link-extractor.js';
import { relevanceScore } from '../discovery/relevance.js';
import type { FrontierLink } from './link-table.js';

/** A URL's priority without a `priority` object: every page alike, so the frontier runs breadth-first. */
export const NEUTRAL_SCORE = 0.5;
const KEYWORD_WEIGHT = 0.4;
const BOOST = 0.3;
const DEMOTE = 0.4;
/** Found URLs a crawl's rules remember their judgement of, in each worker process. */
const JUDGED_LIMIT = 50_000;

/**
 * What a crawl's configuration says about URLs it finds: whether they belong
 * to the crawl (host scope, include and exclude patterns), their priority
 * score and their budget pattern.
 */
export interface CrawlRules {
  /**
   * A found link's URL normalised when the crawl admits it, else null. A
   * crawl meets the same links (its navigation) on page after page, so each
   * URL is judged once and remembered (up to JUDGED_LIMIT at a time).
   */
  admitted(url: string): string | null;
  /**
   * 0 to 1: 0.5, plus up to 0.4 for the `priority.keywords` matching the
   * path or anchor text (the map's relevance score), plus 0.3 on a boost
   * pattern, minus 0.4 on a demote pattern.
   */
  score(url: string, anchorText: string): number;
  budgetKey(url: string): string | null;
}

export function crawlRules(config: CrawlConfig): CrawlRules {
  const scope = new DomainScope(config.url, { includeSubdomains: config.include_subdomains });
  const paths = new PathFilter({ include: config.include_patterns, exclude: config.exclude_patterns });
  const keywords = (config.priority?.keywords ?? []).join(' ');
  const boost = (config.priority?.boost_patterns ?? []).map(compilePathGlob);
  const demote = (config.priority?.demote_patterns ?? []).map(compilePathGlob);
  const budget = budgetMatcher(config.budget);
  const admits = (url: string) => scope.contains(url) && paths.allows(url);
  const judged = new Map<string, string | null>();
  return {
    admitted(url) {
      let normalized = judged.get(url);
      if (normalized === undefined) {
        const candidate = normalizeUrl(url);
        normalized = candidate !== null && admits(candidate) ? candidate : null;
        if (judged.size >= JUDGED_LIMIT) judged.clear();
        judged.set(url, normalized);
      }
      return normalized;
    },
    score(url, anchorText) {
      if (!keywords && boost.length === 0 && demote.length === 0) return NEUTRAL_SCORE;
      const path = matchablePath(url);
      let score = NEUTRAL_SCORE;
      if (keywords) score += KEYWORD_WEIGHT * relevanceScore(keywords, { path: new URL(url).pathname, anchorText });
      if (boost.some((m) => m(path))) score += BOOST;
      if (demote.some((m) => m(path))) score -= DEMOTE;
      return Math.round(Math.min(1, Math.max(0, score)) * 10_000) / 10_000;
    },
    budgetKey: budget,
  };
}

/** The links of a page that join the frontier: normalised, in the crawl's scope, each once, one level deeper. */
export function frontierLinks(links: readonly ExtractedLink[], depth: number, rules: CrawlRules): FrontierLink[] {
  const byUrl = new Map<string, string[]>();
  for (const link of links) {
    const url = rules.admitted(link.url);
    if (url === null) continue;
    const texts = byUrl.get(url);
    if (texts) {
      if (link.text && texts.length < 10) texts.push(link.text);
    } else byUrl.set(url, link.text ? [link.text] : []);
  }
  return [...byUrl].map(([url, texts]) => ({ url, depth: depth + 1, score: rules.score(url, texts.join('\n')), source: 'link', budgetKey: rules.budgetKey(url) ?? '' }));
}
