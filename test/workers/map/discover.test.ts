import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { discoverSite, type MapFetch, type MapOptions, type MapOutcome } from '../../../workers/map/discover.js';
import { createMapFetch } from '../../../workers/map/map-fetch.js';
import { reachableHtmlPages, startStaticSiteServer, unpackSite, type StaticSiteServer } from '../../fixtures/static-site-server.js';

const STACK = process.env.TRAWL_TEST_STACK ?? 'mapdev';
const UA = `TrawlBot/1.0 (+${STACK})`;
const HOME = 'http://example.test/';

interface Route {
  status?: number;
  type?: string;
  body?: string | Buffer;
  location?: string;
}

const page = (title: string, links: Array<[string, string] | [string, string, string]>, extraHead = '') =>
  `<!doctype html><html><head><title>${title}</title>${extraHead}</head><body>${links
    .map(([href, text, rel]) => `<a href="${href}"${rel ? ` rel="${rel}"` : ''}>${text}</a>`)
    .join('\n')}</body></html>`;

const urlset = (entries: Array<[string, string?]>) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map(([loc, lastmod]) => `<url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`)
    .join('')}</urlset>`;

/** The fixture site, by host and path. example.test is the site, sub.example.test its subdomain. */
const ROUTES: Record<string, Route> = {
  'example.test/robots.txt': {
    type: 'text/plain',
    body: [
      'User-agent: *',
      'Disallow: /private/',
      'Crawl-delay: 2',
      '',
      'User-agent: OtherBot',
      'Disallow: /',
      '',
      'Sitemap: http://example.test/sitemap_index.xml',
    ].join('\n'),
  },
  'example.test/sitemap_index.xml': {
    type: 'application/xml',
    body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://example.test/sitemaps/pages.xml.gz</loc></sitemap></sitemapindex>`,
  },
  'example.test/sitemaps/pages.xml.gz': {
    type: 'application/gzip',
    body: gzipSync(
      urlset([
        ['http://example.test/'],
        ['http://example.test/blog/post-1'],
        ['http://example.test/orphan', '2024-01-02'],
        ['http://example.test/docs/deep/a/b'],
        ['http://example.test/private/secret'],
        ['http://example.test/products/widget-pro', '2024-05-01'],
        ['http://example.test/team'],
        ['http://example.test/blog/post-1'],
      ]),
    ),
  },
  // A site that moved: its start page redirects to another registrable domain.
  'moved.test/': { status: 301, location: 'http://landing.test/' },
  'moved.test/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /nothing-here/\n' },
  'landing.test/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /hidden\n' },
  'landing.test/': { body: page('Landing', [['/docs', 'Docs'], ['/hidden', 'Hidden'], ['http://moved.test/old', 'Old']]) },
  'landing.test/docs': { body: page('Docs', [['/docs/one', 'One']]) },
  'landing.test/docs/one': { body: page('One', []) },
  'example.test/custom-map.xml': { type: 'application/xml', body: urlset([['http://example.test/custom-only']]) },
  'example.test/': {
    body: page('Home', [
      ['/about', 'About us'],
      ['/about#team', 'About the team'],
      ['http://EXAMPLE.test/about', 'About again'],
      ['/blog/../about', 'About, once more'],
      ['/blog/', 'Blog'],
      ['/private/secret', 'Secret'],
      ['/docs/guide', 'Guide'],
      ['/products/widget-pro', 'Widget Pro'],
      ['/nofollow-target', 'Sponsored', 'nofollow'],
      ['http://sub.example.test/', 'Sub site'],
      ['http://other.test/', 'Elsewhere'],
      ['mailto:someone@example.test', 'Mail'],
    ]),
  },
  'example.test/about': { body: page('About', [['/', 'Home'], ['/team', 'Team']]) },
  'example.test/team': { body: page('Team', [['/team/alice', 'Alice']]) },
  'example.test/team/alice': { body: page('Alice', []) },
  'example.test/blog/': {
    body: page('Blog', [
      ['/blog/post-1', 'First post about widgets'],
      ['/blog/post-2', 'Second post'],
      ['/old-about', 'Old about page'],
    ]),
  },
  'example.test/old-about': { status: 301, location: 'http://example.test/about' },
  'example.test/blog/post-1': { body: page('Post one', [['/blog/post-1/comments', 'Comments']]) },
  'example.test/blog/post-1/comments': { body: page('Comments', []) },
  'example.test/blog/post-2': { body: page('Post two', []) },
  'example.test/docs/guide': {
    body: page('Crawler configuration guide', [['/docs/api', 'API']], '<meta name="description" content="How to set up the crawler.">'),
  },
  'example.test/docs/api': { body: page('API', []) },
  'example.test/private/secret': { body: page('Secret', [['/private/hidden-child', 'Hidden']]) },
  'example.test/private/hidden-child': { body: page('Hidden', []) },
  'example.test/nofollow-target': { body: page('Sponsored', []) },
  'example.test/orphan': { body: page('Orphan', [['/orphan/child', 'Child of orphan']]) },
  'example.test/orphan/child': { body: page('Orphan child', []) },
  'example.test/products/widget-pro': { body: page('Widget Pro', []) },
  'example.test/custom-only': { body: page('Custom', []) },
  'sub.example.test/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /sub-private\n' },
  'sub.example.test/': { body: page('Sub home', [['/sub-page', 'Sub page'], ['/sub-private', 'Sub private']]) },
  'sub.example.test/sub-page': { body: page('Sub page', []) },
  'sub.example.test/sub-private': { body: page('Sub private', []) },
};

function startFixture(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const route = ROUTES[`${host}${req.url}`];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><title>Not found</title></html>');
      return;
    }
    res.writeHead(route.status ?? 200, {
      'content-type': route.type ?? 'text/html; charset=utf-8',
      ...(route.location ? { location: route.location } : {}),
    });
    res.end(route.body ?? '');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function get(port: number, url: URL, signal: AbortSignal): Promise<{ status: number; location?: string; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: url.pathname + url.search, headers: { host: url.host }, signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, type: res.headers['content-type'] ?? '', body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A MapFetch that sends every *.test host to the fixture server (by Host header) and records what was asked. */
function fixtureFetch(port: number, log: string[], delayMs = 0): MapFetch {
  return async (url, signal) => {
    log.push(url);
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    let current = new URL(url);
    for (let hop = 0; hop < 5; hop++) {
      if (!current.hostname.endsWith('.test') || current.hostname === 'other.test') return null;
      const res = await get(port, current, signal).catch(() => null);
      if (!res) return null;
      if (res.status >= 300 && res.status < 400 && res.location) {
        current = new URL(res.location, current);
        continue;
      }
      if (res.status >= 400) return null;
      return { status: res.status, finalUrl: current.href, contentType: res.type.split(';')[0]!.trim(), body: res.body };
    }
    return null;
  };
}

const BASE: MapOptions = {
  url: HOME,
  maxPages: 500,
  maxDepth: 2,
  includePatterns: [],
  excludePatterns: [],
  sitemap: 'skip',
  includeMetadata: false,
  includeSubdomains: false,
  respectRobots: true,
  userAgent: UA,
};

const paths = (outcome: MapOutcome) => outcome.urls.map((u) => u.url.replace('http://example.test', ''));

describe('map/discoverSite', function () {
  this.timeout(60_000);
  let server: http.Server;
  let port: number;

  before(async () => {
    server = await startFixture();
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function map(overrides: Partial<MapOptions>, extra: { log?: string[]; delayMs?: number; deadlineMs?: number; signal?: AbortSignal; concurrency?: number } = {}) {
    return discoverSite({ ...BASE, ...overrides }, fixtureFetch(port, extra.log ?? [], extra.delayMs), {
      deadlineMs: extra.deadlineMs ?? Date.now() + 30_000,
      concurrency: extra.concurrency ?? 3,
      signal: extra.signal ?? new AbortController().signal,
    });
  }

  it('walks links breadth first to max_depth 2, start page first, each URL once with its depth', async () => {
    const outcome = await map({});
    expect(paths(outcome)).to.deep.equal([
      '/',
      '/about',
      '/blog/',
      '/docs/guide',
      '/products/widget-pro',
      '/team',
      '/blog/post-1',
      '/blog/post-2',
      '/old-about',
      '/docs/api',
    ]);
    expect(outcome.urls.map((u) => u.depth)).to.deep.equal([0, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    expect(outcome.urls.every((u) => u.source === 'link' && u.relevance_score === null && u.metadata === null)).to.equal(true);
    expect(outcome.sitemap_found).to.equal(false);
  });

  it('lists duplicates once: fragments, host case, dot segments and a redirect to a listed page', async () => {
    const outcome = await map({ maxDepth: 3 });
    const urls = outcome.urls.map((u) => u.url);
    expect(new Set(urls).size).to.equal(urls.length);
    expect(urls.filter((u) => u === 'http://example.test/about')).to.have.length(1);
    expect(paths(outcome)).to.not.include('/old-about');
    expect(paths(outcome)).to.include.members(['/team/alice', '/blog/post-1/comments']);
  });

  it('maps the site a start page redirects to when that is another site, with its robots.txt, fetching the start page once', async () => {
    const log: string[] = [];
    const outcome = await map({ url: 'http://moved.test/', maxDepth: 3, sitemap: 'skip' }, { log });
    expect(outcome.urls.map((u) => u.url)).to.deep.equal(['http://landing.test/', 'http://landing.test/docs', 'http://landing.test/docs/one']);
    expect(outcome.robots_txt.disallowed_paths).to.deep.equal(['/hidden']);
    expect(log.filter((l) => l.includes('moved.test/') && !l.includes('robots')).length, log.join('\n')).to.equal(1);
    // A redirect within the site (to www. or https) keeps the site as asked: covered by the walk above, where
    // /old-about redirects to /about.
  });

  it('max_depth 0 answers the start page alone, even with sitemaps', async () => {
    const log: string[] = [];
    const outcome = await map({ maxDepth: 0, sitemap: 'include' }, { log });
    expect(outcome.urls).to.deep.equal([{ url: HOME, depth: 0, source: 'sitemap', relevance_score: null, metadata: null }]);
    expect(outcome.sitemap_found).to.equal(true);
  });

  it('stops at max_pages', async () => {
    const outcome = await map({ maxPages: 3 });
    expect(paths(outcome)).to.deep.equal(['/', '/about', '/blog/']);
  });

  it('applies include and exclude globs on the path, exclude winning', async () => {
    const included = await map({ includePatterns: ['/blog/**'] });
    expect(paths(included)).to.deep.equal(['/blog/', '/blog/post-1', '/blog/post-2']);
    const both = await map({ includePatterns: ['/blog/**'], excludePatterns: ['/blog/post-2'] });
    expect(paths(both)).to.deep.equal(['/blog/', '/blog/post-1']);
    const excluded = await map({ excludePatterns: ['/blog/**', '/docs/*'] });
    expect(paths(excluded)).to.deep.equal(['/', '/about', '/products/widget-pro', '/team']);
  });

  it('merges sitemap URLs (index, gzip child) with links: smaller depth, first source, sitemaps seeding the walk', async () => {
    const outcome = await map({ sitemap: 'include' });
    const byPath = new Map(outcome.urls.map((u) => [u.url.replace('http://example.test', ''), u]));
    expect(outcome.sitemap_found).to.equal(true);
    expect(paths(outcome)[0]).to.equal('/');
    expect(byPath.get('/')).to.include({ depth: 0, source: 'sitemap' });
    // In the sitemap at path depth 2, linked from the start page: depth 1, found first in the sitemap.
    expect(byPath.get('/products/widget-pro')).to.include({ depth: 1, source: 'sitemap' });
    // Path depth 1 in the sitemap, a link at depth 2: keeps 1, and its own links are one deeper.
    expect(byPath.get('/team')).to.include({ depth: 1, source: 'sitemap' });
    expect(byPath.get('/team/alice')).to.include({ depth: 2, source: 'link' });
    expect(byPath.get('/orphan')).to.include({ depth: 1, source: 'sitemap' });
    expect(byPath.get('/orphan/child')).to.include({ depth: 2, source: 'link' });
    expect(byPath.get('/about')).to.include({ depth: 1, source: 'link' });
    // Too deep for max_depth 2, and disallowed by robots.txt.
    expect(byPath.has('/docs/deep/a/b')).to.equal(false);
    expect(byPath.has('/private/secret')).to.equal(false);
    expect(outcome.urls.filter((u) => u.url === 'http://example.test/blog/post-1')).to.have.length(1);
    const skipped = await map({ sitemap: 'skip' });
    expect(paths(skipped)).to.not.include.members(['/orphan']);
  });

  it("sitemap 'only' lists sitemap URLs without fetching any page", async () => {
    const log: string[] = [];
    const outcome = await map({ sitemap: 'only', maxDepth: 5 }, { log });
    expect(paths(outcome)).to.deep.equal(['/', '/blog/post-1', '/orphan', '/docs/deep/a/b', '/products/widget-pro', '/team']);
    expect(outcome.urls.every((u) => u.source === 'sitemap')).to.equal(true);
    expect(outcome.urls.find((u) => u.url.endsWith('/docs/deep/a/b'))!.depth).to.equal(4);
    expect(log.map((u) => new URL(u).pathname).sort()).to.deep.equal(['/robots.txt', '/sitemap.xml', '/sitemap_index.xml', '/sitemaps/pages.xml.gz']);
  });

  it('reads a custom sitemap_path', async () => {
    const custom = await map({ sitemap: 'only', sitemapPath: '/custom-map.xml' });
    expect(paths(custom)).to.include('/custom-only');
    const standard = await map({ sitemap: 'only' });
    expect(paths(standard)).to.not.include('/custom-only');
  });

  it('include_metadata adds title, description and the sitemap lastmod', async () => {
    const outcome = await map({ includeMetadata: true, sitemap: 'include', maxDepth: 1 });
    const byPath = new Map(outcome.urls.map((u) => [u.url.replace('http://example.test', ''), u]));
    expect(byPath.get('/docs/guide')!.metadata).to.deep.equal({
      title: 'Crawler configuration guide',
      description: 'How to set up the crawler.',
      last_modified: null,
    });
    // Depth 1 pages are not fetched for links at max_depth 1, only for their metadata.
    expect(byPath.get('/products/widget-pro')!.metadata).to.deep.equal({ title: 'Widget Pro', description: null, last_modified: '2024-05-01' });
    expect(byPath.get('/orphan')!.metadata).to.include({ title: 'Orphan', last_modified: '2024-01-02' });
    expect(outcome.urls.every((u) => u.metadata !== null)).to.equal(true);
  });

  it('include_subdomains follows links to other hosts of the domain, each with its own robots.txt', async () => {
    const without = await map({});
    expect(without.urls.some((u) => u.url.includes('sub.example.test'))).to.equal(false);
    const withSubs = await map({ includeSubdomains: true });
    const urls = withSubs.urls.map((u) => u.url);
    expect(urls).to.include('http://sub.example.test/');
    expect(withSubs.urls.find((u) => u.url === 'http://sub.example.test/sub-page')!.depth).to.equal(2);
    expect(urls).to.not.include('http://sub.example.test/sub-private');
    expect(urls.some((u) => u.includes('other.test'))).to.equal(false);
    const ignoring = await map({ includeSubdomains: true, respectRobots: false });
    expect(ignoring.urls.map((u) => u.url)).to.include('http://sub.example.test/sub-private');
  });

  it('reports robots.txt and obeys it only with respect_robots', async () => {
    const log: string[] = [];
    const obeying = await map({ maxDepth: 3 }, { log });
    expect(obeying.robots_txt).to.deep.equal({
      exists: true,
      disallowed_paths: ['/private/'],
      crawl_delay: 2,
      sitemaps: ['http://example.test/sitemap_index.xml'],
    });
    expect(paths(obeying).some((p) => p.startsWith('/private/'))).to.equal(false);
    expect(paths(obeying)).to.not.include('/nofollow-target');
    expect(log.some((u) => u.includes('/private/'))).to.equal(false);

    const ignoring = await map({ maxDepth: 3, respectRobots: false });
    expect(paths(ignoring)).to.include.members(['/private/secret', '/private/hidden-child', '/nofollow-target']);
    expect(ignoring.robots_txt.exists).to.equal(true);

    const otherLog: string[] = [];
    const shut = await map({ userAgent: 'OtherBot/2.0' }, { log: otherLog });
    expect(shut.urls).to.deep.equal([]);
    expect(shut.robots_txt.disallowed_paths).to.deep.equal(['/']);
    expect(otherLog.map((u) => new URL(u).pathname)).to.deep.equal(['/robots.txt']);
    const shutIgnoring = await map({ userAgent: 'OtherBot/2.0', respectRobots: false });
    expect(shutIgnoring.urls.length).to.be.greaterThan(5);
  });

  it('reports a missing robots.txt', async () => {
    const outcome = await discoverSite({ ...BASE, url: 'http://nothing.test/' }, fixtureFetch(port, []), {
      deadlineMs: Date.now() + 10_000,
      concurrency: 2,
      signal: new AbortController().signal,
    });
    expect(outcome.robots_txt).to.deep.equal({ exists: false, disallowed_paths: [], crawl_delay: null, sitemaps: [] });
    expect(outcome.urls.map((u) => u.url)).to.deep.equal(['http://nothing.test/']);
  });

  it('search scores path, anchor text and title, drops non-matches and sorts best first', async () => {
    const widget = await map({ search: 'widget' });
    expect(paths(widget)).to.deep.equal(['/products/widget-pro', '/blog/post-1']);
    expect(widget.urls[0]!.relevance_score).to.equal(1);
    // Only the anchor text "First post about widgets" matches, as a prefix: 0.9 × 0.7 × 0.9.
    expect(widget.urls[1]!.relevance_score).to.be.closeTo(0.567, 1e-4);
    // "configuration" is only in the guide's title.
    const byTitle = await map({ search: 'configuration' });
    expect(paths(byTitle)).to.deep.equal(['/docs/guide']);
    expect(byTitle.urls[0]!.relevance_score).to.equal(1);
    const none = await map({ search: 'zebra' });
    expect(none.urls).to.deep.equal([]);
    const several = await map({ search: 'about team' });
    const scores = several.urls.map((u) => u.relevance_score!);
    expect(scores.length).to.be.greaterThan(1);
    expect([...scores].sort((a, b) => b - a)).to.deep.equal(scores);
    expect(paths(several)[0]).to.equal('/about');
    // max_pages counts matching URLs: discovery goes past non-matching ones and stops once enough match.
    const one = await map({ search: 'alice', maxPages: 1, maxDepth: 3 });
    expect(paths(one)).to.deep.equal(['/team/alice']);
    const firstTwo = await map({ search: 'about team', maxPages: 2 });
    expect(paths(firstTwo)).to.have.length(2);
    expect(paths(firstTwo)[0]).to.equal('/about');
  });

  it('answers what it found when the deadline passes', async () => {
    const full = await map({ maxDepth: 3 });
    const started = Date.now();
    const partial = await map({ maxDepth: 3 }, { delayMs: 150, concurrency: 1, deadlineMs: Date.now() + 700 });
    const elapsed = Date.now() - started;
    expect(elapsed).to.be.below(1_500);
    expect(paths(partial)[0]).to.equal('/');
    expect(partial.urls.length).to.be.greaterThan(1);
    expect(partial.urls.length).to.be.below(full.urls.length);
    expect(partial.robots_txt.exists).to.equal(true);
  });

  it('fetches at most `concurrency` URLs at a time, and the order does not depend on which answers first', async () => {
    let inFlight = 0;
    let most = 0;
    const inner = fixtureFetch(port, []);
    const counting: MapFetch = async (url, signal) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Later URLs answer sooner, so answers arrive out of order.
      await new Promise((r) => setTimeout(r, url.length % 7 === 0 ? 5 : 40));
      try {
        return await inner(url, signal);
      } finally {
        inFlight--;
      }
    };
    const outcome = await discoverSite({ ...BASE, maxDepth: 3, sitemap: 'include' }, counting, {
      deadlineMs: Date.now() + 30_000,
      concurrency: 2,
      signal: new AbortController().signal,
    });
    expect(most).to.equal(2);
    const sequential = await map({ maxDepth: 3, sitemap: 'include' }, { concurrency: 1 });
    expect(outcome.urls).to.deep.equal(sequential.urls);
  });

  it('answers what it found when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = Date.now();
    const partial = await map({ maxDepth: 3 }, { delayMs: 150, concurrency: 1, signal: controller.signal });
    expect(Date.now() - started).to.be.below(1_500);
    expect(partial.urls.length).to.be.within(1, 8);
  });
});

const SITE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/sites/rust-by-example.tar.gz');

describe('map/discoverSite on a real site (rust-by-example)', function () {
  this.timeout(120_000);
  let root: string;
  let site: StaticSiteServer;
  let origin: string;

  before(async () => {
    site = await startStaticSiteServer(unpackSite(SITE, `${STACK}-map`), { removeOnClose: true });
    root = site.root;
    origin = site.origin;
  });

  after(() => site.close());

  const reachableHtml = () => reachableHtmlPages(root);

  it('finds every reachable HTML page exactly once', async () => {
    const expected = reachableHtml();
    expect(expected.size).to.equal(193);
    const fetch = createMapFetch({
      guard: { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] },
      maxBytes: 10 * 1024 * 1024,
      maxRedirects: 5,
      userAgent: UA,
      timeoutMs: 10_000,
    });
    const outcome = await discoverSite(
      { ...BASE, url: `${origin}/index.html`, maxDepth: 10, maxPages: 1000, sitemap: 'include' },
      fetch,
      { deadlineMs: Date.now() + 100_000, concurrency: 2, signal: new AbortController().signal },
    );
    const urls = outcome.urls.map((u) => u.url);
    expect(new Set(urls).size).to.equal(urls.length);
    expect(urls[0]).to.equal(`${origin}/index.html`);
    const htmlPages = urls.map((u) => new URL(u).pathname).filter((p) => p.endsWith('.html') && existsSync(path.join(root, decodeURIComponent(p))));
    expect(new Set(htmlPages)).to.deep.equal(expected);
    expect(htmlPages).to.have.length(193);
    expect(outcome.robots_txt.exists).to.equal(false);
    expect(outcome.sitemap_found).to.equal(false);
  });

  it('createMapFetch keeps the SSRF guard on: a private address is refused', async () => {
    const fetch = createMapFetch({ guard: { allowPrivate: false }, maxBytes: 1024 * 1024, maxRedirects: 5, userAgent: UA, timeoutMs: 5_000 });
    expect(await fetch(`${origin}/index.html`, new AbortController().signal)).to.equal(null);
    const allowed = createMapFetch({ guard: { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }, maxBytes: 1024 * 1024, maxRedirects: 5, userAgent: UA, timeoutMs: 5_000 });
    expect(await allowed(`${origin}/missing.html`, new AbortController().signal)).to.equal(null);
    const ok = await allowed(`${origin}/index.html`, new AbortController().signal);
    expect(ok).to.include({ status: 200, contentType: 'text/html' });
  });
});
