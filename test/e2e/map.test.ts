import { expect } from 'chai';
import { startSiteServer, type SiteRoute, type SiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

/** A small site: robots.txt with a disallowed folder and a sitemap, pages linking each other two levels deep. */
function siteRoutes(): SiteRoute[] {
  const html = (title: string, links: string[], description = '') =>
    `<!doctype html><html><head><title>${title}</title>${description ? `<meta name="description" content="${description}">` : ''}</head>` +
    `<body><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l.replace(/^\//, '') || 'home'} page</a>`).join(' ')}</body></html>`;
  const page = (path: string, title: string, links: string[], description = ''): SiteRoute => ({
    path,
    handle: ({ res }) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html(title, links, description));
    },
  });
  return [
    {
      path: '/robots.txt',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: ${origin}/sitemap.xml\n`);
      },
    },
    {
      path: '/sitemap.xml',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
            `<url><loc>${origin}/docs/guide</loc><lastmod>2026-01-02</lastmod></url><url><loc>${origin}/blog/launch</loc></url></urlset>`,
        );
      },
    },
    page('/', 'Home', ['/docs/guide', '/docs/api', '/private/secret', '/blog/launch'], 'The home page'),
    page('/docs/guide', 'Guide', ['/', '/docs/guide/install']),
    page('/docs/api', 'API reference', ['/docs/api/errors']),
    page('/docs/guide/install', 'Install', ['/docs/guide/install/linux']),
    page('/docs/api/errors', 'Errors', []),
    page('/docs/guide/install/linux', 'Linux', []),
    page('/blog/launch', 'Launch post', []),
    page('/private/secret', 'Secret', []),
  ];
}

describe('POST /api/v1/map (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    site = await startSiteServer({ routes: siteRoutes() });
    account = await createTestAccount(stack, 10_000_000);
  });
  after(() => site.close());

  const api = () => apiClient(stack.baseUrl, account.key);
  const paths = (body: { urls: Array<{ url: string }> }) => body.urls.map((u) => new URL(u.url).pathname).sort();

  it('lists the site from robots.txt, the sitemap and links, leaves out what robots.txt disallows, and costs one credit', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await api().post('/api/v1/map', { url: `${site.url}/` });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.map_id).to.match(/^[0-9a-f-]{36}$/);
    expect(paths(res.body)).to.deep.equal(['/', '/blog/launch', '/docs/api', '/docs/api/errors', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux']);
    expect(res.body.total_urls).to.equal(7);
    expect(res.body.urls[0]).to.deep.include({ url: `${site.url}/`, depth: 0, source: 'link', relevance_score: null, metadata: null });
    const byPath = new Map(res.body.urls.map((u: { url: string }) => [new URL(u.url).pathname, u]));
    expect(byPath.get('/docs/guide/install/linux')).to.include({ depth: 3, source: 'link' });
    expect(byPath.get('/blog/launch')).to.include({ depth: 1 });
    expect(res.body.sitemap_found).to.equal(true);
    expect(res.body.robots_txt).to.deep.equal({ exists: true, disallowed_paths: ['/private'], crawl_delay: 2, sitemaps: [`${site.url}/sitemap.xml`] });
    expect(res.body.credits_used).to.equal(1);
    expect(res.headers.get('x-service-credits')).to.equal('1');
    expect(site.hits('/private/secret')).to.equal(0);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 200);
  });

  it('follows max_depth, max_pages, the path patterns, sitemap only and search', async () => {
    const shallow = await api().post('/api/v1/map', { url: `${site.url}/`, max_depth: 0, sitemap: 'skip' });
    expect(paths(shallow.body)).to.deep.equal(['/']);
    const few = await api().post('/api/v1/map', { url: `${site.url}/`, max_pages: 3 });
    expect(few.body.total_urls).to.equal(3);
    const docs = await api().post('/api/v1/map', { url: `${site.url}/`, include_patterns: ['/docs/**'], exclude_patterns: ['/docs/api/**'] });
    expect(paths(docs.body).filter((p: string) => p !== '/')).to.deep.equal(['/docs/guide', '/docs/guide/install', '/docs/guide/install/linux']);
    const sitemapOnly = await api().post('/api/v1/map', { url: `${site.url}/`, sitemap: 'only' });
    expect(sitemapOnly.body.urls.filter((u: { source: string }) => u.source === 'sitemap').map((u: { url: string }) => new URL(u.url).pathname).sort()).to.deep.equal([
      '/blog/launch',
      '/docs/guide',
    ]);
    const found = await api().post('/api/v1/map', { url: `${site.url}/`, search: 'install' });
    expect(found.body.urls.length).to.be.greaterThan(0);
    expect(new URL(found.body.urls[0].url).pathname).to.match(/install/);
    for (const u of found.body.urls) expect(u.relevance_score).to.be.within(0, 1);
  });

  it('answers titles and descriptions with include_metadata', async () => {
    const res = await api().post('/api/v1/map', { url: `${site.url}/`, include_metadata: true, max_depth: 1 });
    expect(res.status).to.equal(200);
    const home = res.body.urls.find((u: { url: string }) => new URL(u.url).pathname === '/');
    expect(home.metadata).to.include({ title: 'Home', description: 'The home page' });
    expect(home.title).to.equal('Home');
  });

  it('keeps the history: list (with domain), one map with its configuration, and another account sees none of it', async () => {
    const made = await api().post('/api/v1/map', { url: `${site.url}/`, max_depth: 1 });
    const one = await api().get(`/api/v1/map/${made.body.map_id}`);
    expect(one.status).to.equal(200);
    expect(one.body.urls).to.deep.equal(made.body.urls);
    expect(one.body.config).to.deep.include({ url: `${site.url}/`, max_depth: 1, max_pages: 500, sitemap: 'include', respect_robots: true, include_metadata: false });
    const list = await api().get('/api/v1/map?limit=2');
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ page: 1, per_page: 2 });
    expect(list.body.total).to.be.at.least(5);
    expect(list.body.maps[0]).to.deep.equal({
      map_id: made.body.map_id,
      url: `${site.url}/`,
      domain: '127.0.0.1',
      total_urls: made.body.total_urls,
      credits_used: 1,
      sitemap_found: true,
      created_at: one.body.created_at,
    });
    expect((await api().get('/api/v1/map?domain=elsewhere.example')).body).to.deep.include({ maps: [], total: 0 });
    const other = await createTestAccount(stack, 1_000_000);
    expect((await apiClient(stack.baseUrl, other.key).get(`/api/v1/map/${made.body.map_id}`)).status).to.equal(404);
    expect((await apiClient(stack.baseUrl, other.key).get('/api/v1/map')).body.total).to.equal(0);
    expect((await api().get('/api/v1/map/not-a-map')).status).to.equal(404);
  });

  it('refuses bad input with 400, an empty balance with 402, and a private address with 400 URL_NOT_ALLOWED, refunded', async () => {
    for (const body of [{}, { url: 'ftp://example.com/' }, { url: `${site.url}/`, max_pages: 0 }, { url: `${site.url}/`, sitemap: 'sometimes' }, { url: `${site.url}/`, extra: 1 }, { url: `${site.url}/`, sitemap_path: 'no-slash' }]) {
      const res = await api().post('/api/v1/map', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
    }
    expect((await api().get('/api/v1/map?limit=101')).status).to.equal(400);
    const poor = await createTestAccount(stack, 0);
    const refused = await apiClient(stack.baseUrl, poor.key).post('/api/v1/map', { url: `${site.url}/` });
    expect(refused.status).to.equal(402);
    expect(refused.body.error).to.equal('INSUFFICIENT_CREDITS');
    const before = await balanceOf(stack.pool, account.accountId);
    const privateAddress = await api().post('/api/v1/map', { url: 'http://10.1.2.3/' });
    expect(privateAddress.status).to.equal(400);
    expect(privateAddress.body.error).to.equal('URL_NOT_ALLOWED');
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });
});
