import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { DOCS_SITE_PAGES } from '../fixtures/docs-site.js';
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
      // A generated site of 3,000 pages: page n links to pages 5n+1 … 5n+5.
      path: '/gen/:n',
      handle: ({ res, params }) => {
        const n = Number(params['n']);
        const children = [1, 2, 3, 4, 5].map((i) => 5 * n + i).filter((c) => c < 3_000);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>Page ${n}</title></head><body>${children.map((c) => `<a href="/gen/${c}">page ${c}</a>`).join(' ')}</body></html>`);
      },
    },
    {
      path: '/extra-sitemap.xml.gz',
      handle: ({ res, origin }) => {
        const body = gzipSync(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/docs/api/errors</loc></url></urlset>`);
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
        res.end(body);
      },
    },
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
    ...DOCS_SITE_PAGES.map(([path, title, links]) => page(path, title, links)),
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
    const gzipped = await api().post('/api/v1/map', { url: `${site.url}/`, sitemap: 'only', sitemap_path: '/extra-sitemap.xml.gz' });
    expect(gzipped.body.urls.filter((u: { source: string }) => u.source === 'sitemap').map((u: { url: string }) => new URL(u.url).pathname)).to.include('/docs/api/errors');
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

  it('compares two maps of the domain, each category paged, and refuses maps of two domains', async () => {
    const a = await api().post('/api/v1/map', { url: `${site.url}/`, max_depth: 1, sitemap: 'skip' });
    const b = await api().post('/api/v1/map', { url: `${site.url}/`, max_depth: 2, exclude_patterns: ['/docs/api/**'] });
    const res = await api().get(`/api/v1/map/compare?map_id_a=${a.body.map_id}&map_id_b=${b.body.map_id}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const path = (u: { url: string }) => new URL(u.url).pathname;
    expect(res.body).to.include({ map_id_a: a.body.map_id, map_id_b: b.body.map_id, domain: '127.0.0.1', limit: 100, offset: 0 });
    expect(res.body.summary).to.deep.equal({
      added: 1,
      removed: 1,
      unchanged: 1,
      changed: 2,
      total_a: 4,
      total_b: 5 - 1,
      sitemap_changed: true,
      url_delta: 0,
    });
    expect(res.body.added_urls).to.deep.equal([{ url: `${site.url}/docs/guide/install`, source_b: 'link', depth_b: 2 }]);
    expect(res.body.removed_urls).to.deep.equal([{ url: `${site.url}/docs/api`, source_a: 'link', depth_a: 1 }]);
    expect(res.body.changed_urls.map(path).sort()).to.deep.equal(['/blog/launch', '/docs/guide']);
    expect(res.body.changed_urls[0]).to.include({ source_a: 'link', source_b: 'sitemap', depth_a: 1, depth_b: 1 });
    expect(res.body.unchanged_urls.map(path)).to.deep.equal(['/']);
    expect(res.body).to.include({ total_added: 1, total_removed: 1, total_changed: 2, total_unchanged: 1 });
    const paged = await api().get(`/api/v1/map/compare?map_id_a=${a.body.map_id}&map_id_b=${b.body.map_id}&limit=1&offset=1`);
    expect(paged.body.changed_urls).to.have.length(1);
    expect(paged.body.added_urls).to.deep.equal([]);
    expect(paged.body.summary.changed).to.equal(2);

    // A map of another domain, filed directly.
    const elsewhere = '00000000-0000-4000-8000-00000000e15e';
    await stack.pool.query(
      `WITH src AS (SELECT * FROM jobs WHERE id = $1)
       INSERT INTO jobs SELECT (jsonb_populate_record(null::jobs, to_jsonb(src) || jsonb_build_object('id', $2::uuid))).* FROM src`,
      [a.body.map_id, elsewhere],
    );
    await stack.pool.query(
      `INSERT INTO maps (id, account_id, url, domain, config, result, total_urls, sitemap_found, credits_used)
       SELECT $2, account_id, 'https://elsewhere.example/', 'elsewhere.example', config, result, total_urls, sitemap_found, credits_used FROM maps WHERE id = $1`,
      [a.body.map_id, elsewhere],
    );
    const mixed = await api().get(`/api/v1/map/compare?map_id_a=${a.body.map_id}&map_id_b=${elsewhere}`);
    expect(mixed.status).to.equal(400);
    expect(mixed.body.error).to.equal('VALIDATION_ERROR');
    expect((await api().get(`/api/v1/map/compare?map_id_a=${a.body.map_id}`)).status).to.equal(400);
    expect((await api().get(`/api/v1/map/compare?map_id_a=${a.body.map_id}&map_id_b=${a.body.map_id}&limit=1001`)).status).to.equal(400);
    const other = await createTestAccount(stack, 1_000_000);
    expect((await apiClient(stack.baseUrl, other.key).get(`/api/v1/map/compare?map_id_a=${a.body.map_id}&map_id_b=${b.body.map_id}`)).status).to.equal(404);
  });

  it('exports a map as JSON, CSV and a sitemap, as a download', async () => {
    const made = await api().post('/api/v1/map', { url: `${site.url}/`, include_metadata: true });
    const get = (format?: string) => fetch(`${stack.baseUrl}/api/v1/map/${made.body.map_id}/export${format ? `?format=${format}` : ''}`, { headers: { 'X-API-Key': account.key } });
    const json = await get();
    expect(json.status).to.equal(200);
    expect(json.headers.get('content-disposition')).to.equal(`attachment; filename="map-${made.body.map_id}.json"`);
    const exported = (await json.json()) as { urls: unknown[]; config: object };
    expect(exported.urls).to.deep.equal(made.body.urls);
    expect(exported.config).to.include({ include_metadata: true });

    const csv = await get('csv');
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).to.equal('url,depth,source,relevance_score,title,description,last_modified');
    expect(lines).to.have.length(made.body.total_urls + 1);
    expect(lines[1]).to.equal(`${site.url}/,0,link,,Home,The home page,`);
    expect(lines.find((l) => l.includes('/docs/guide,'))).to.match(/,2026-01-02$/);

    const xml = await get('xml');
    expect(xml.headers.get('content-type')).to.match(/^application\/xml/);
    const sitemap = await xml.text();
    expect(sitemap).to.match(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    expect(sitemap.match(/<loc>/g)).to.have.length(made.body.total_urls);
    expect(sitemap).to.contain(`<url><loc>${site.url}/docs/guide</loc><lastmod>2026-01-02</lastmod></url>`);

    expect((await get('pdf')).status).to.equal(400);
    const other = await createTestAccount(stack, 1_000_000);
    expect((await fetch(`${stack.baseUrl}/api/v1/map/${made.body.map_id}/export?format=csv`, { headers: { 'X-API-Key': other.key } })).status).to.equal(404);
  });

  it('maps a site of 3,000 pages in one call, every page once', async () => {
    const res = await api().post('/api/v1/map', { url: `${site.url}/gen/0`, max_pages: 5_000, max_depth: 10, sitemap: 'skip', include_patterns: ['/gen/*'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    const urls = res.body.urls.map((u: { url: string }) => u.url);
    expect(new Set(urls).size).to.equal(3_000);
    expect(urls).to.have.length(3_000);
    expect(res.body.urls.find((u: { url: string }) => u.url.endsWith('/gen/2999')).depth).to.equal(5);
  });

  it('refuses bad input with 400, an empty balance with 402, a private address with 400 URL_NOT_ALLOWED and a site that answers nothing, both refunded', async () => {
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
    // A site that answers nothing at all (here: a port nobody listens on) fails the map, refunded.
    const gone = await startSiteServer();
    const goneUrl = `${gone.url}/`;
    await gone.close();
    const unreachable = await api().post('/api/v1/map', { url: goneUrl });
    expect(unreachable.status, JSON.stringify(unreachable.body)).to.be.within(500, 599);
    expect(['NETWORK_ERROR', 'TARGET_UNAVAILABLE']).to.include(unreachable.body.error);
    expect(unreachable.body.details).to.include({ refunded: true });
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    // A site whose pages answer 404 but whose robots.txt answers is mapped (and charged).
    const lost = await api().post('/api/v1/map', { url: `${site.url}/nowhere/` });
    expect(lost.status).to.equal(200);
    expect(lost.body.robots_txt.exists).to.equal(true);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 200);
  });
});
