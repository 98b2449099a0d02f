import { expect } from 'chai';
import type { CrawlConfig } from '../../../common/crawl-config.js';
import { extractLinks } from '../../../workers/discovery/link-extractor.js';
import { crawlRules, frontierLinks, NEUTRAL_SCORE } from '../../../workers/crawl/link-frontier.js';

function config(over: Partial<CrawlConfig>): CrawlConfig {
  return {
    url: 'https://docs.example.com/',
    max_pages: 50,
    max_depth: 3,
    include_patterns: null,
    exclude_patterns: null,
    formats: null,
    extraction_schema: null,
    extraction_profile: null,
    webhook_url: null,
    webhook: null,
    respect_robots: true,
    include_subdomains: false,
    sitemap: 'include',
    sitemap_path: null,
    cache: false,
    cache_ttl: 900,
    force_refresh: false,
    headers: null,
    storage: 'redis',
    advanced: null,
    cost_controls: null,
    priority: null,
    budget: null,
    change_tracking: null,
    output: null,
    ...over,
  };
}

const PAGE = `<a href="/guide/install?utm_source=x#top">Install guide</a> <a href="/guide/install">again</a>
  <a href="/blog/news">News</a> <a href="https://other.example/x">elsewhere</a> <a href="https://api.docs.example.com/ref">API</a>
  <a href="/private/area">Private</a>`;

describe('crawl/link-frontier', () => {
  const links = extractLinks(PAGE, 'https://docs.example.com/start').links;

  it('keeps in-scope links once by their normalised URL, one level deeper, with their budget pattern', () => {
    const found = frontierLinks(links, 1, crawlRules(config({ exclude_patterns: ['/private/**'], budget: { '/blog/**': 1, '*': 5 } })));
    expect(found.map((l) => l.url)).to.deep.equal(['https://docs.example.com/guide/install', 'https://docs.example.com/blog/news']);
    expect(found.every((l) => l.depth === 2 && l.source === 'link' && l.score === NEUTRAL_SCORE)).to.equal(true);
    expect(found.map((l) => l.budgetKey)).to.deep.equal(['*', '/blog/**']);
    const subdomains = frontierLinks(links, 0, crawlRules(config({ include_subdomains: true })));
    expect(subdomains.map((l) => l.url)).to.include('https://api.docs.example.com/ref');
  });

  it('judges a URL met on many pages the same way every time, the same as normalising and scoping it', () => {
    const rules = crawlRules(config({ exclude_patterns: ['/private/**'] }));
    for (let page = 0; page < 3; page++) {
      expect(rules.admitted('https://docs.example.com/guide/install?utm_source=x#top')).to.equal('https://docs.example.com/guide/install');
      expect(rules.admitted('https://docs.example.com/private/area')).to.equal(null);
      expect(rules.admitted('https://other.example/x')).to.equal(null);
    }
    // Links found on later pages still join once per page, the remembered judgement included.
    expect(frontierLinks(links, 0, rules).map((l) => l.url)).to.deep.equal(['https://docs.example.com/guide/install', 'https://docs.example.com/blog/news']);
    expect(frontierLinks(links, 0, rules).map((l) => l.url)).to.deep.equal(['https://docs.example.com/guide/install', 'https://docs.example.com/blog/news']);
  });

  it('scores by keywords in path and anchor text, boost and demote patterns, within 0 and 1', () => {
    const rules = crawlRules(config({ priority: { keywords: ['install'], boost_patterns: ['/guide/**'], demote_patterns: ['/blog/**'] } }));
    const install = rules.score('https://docs.example.com/guide/install', 'Install guide');
    const news = rules.score('https://docs.example.com/blog/news', 'News');
    const other = rules.score('https://docs.example.com/about', '');
    expect(install).to.equal(1);
    expect(other).to.equal(NEUTRAL_SCORE);
    expect(news).to.be.closeTo(0.1, 1e-9);
    expect(rules.score('https://docs.example.com/guide/other', '')).to.be.closeTo(0.8, 1e-9);
  });
});
