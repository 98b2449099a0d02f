import { expect } from 'chai';
import { startSiteServer, type SiteRoute, type SiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, linkPage, waitForCrawl } from './crawl-support.js';

/** A small site: robots.txt disallowing /private, a sitemap naming an orphan page, links two levels deep. */
function siteRoutes(): SiteRoute[] {
  return [
    {
      path: '/robots.txt',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`User-agent: *\nDisallow: /private\nSitemap: ${origin}/sitemap.xml\n`);
      },
    },
    {
      path: '/sitemap.xml',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/orphan</loc></url></urlset>`);
      },
    },
    linkPage('/', 'Home', ['/docs/guide', '/docs/api', '/private/secret', '/blog/launch', '/blog/launch#top', '/missing']),
    linkPage('/docs/guide', 'Guide', ['/', '/docs/guide/install']),
    linkPage('/docs/api', 'API reference', ['/docs/api/errors']),
    linkPage('/docs/guide/install', 'Install', ['/docs/guide/install/linux']),
    linkPage('/docs/api/errors', 'Errors', []),
    linkPage('/docs/guide/install/linux', 'Linux', []),
    linkPage('/blog/launch', 'Launch post', []),
    linkPage('/private/secret', 'Secret', []),
    linkPage('/orphan', 'Orphan', []),
  ];
}

describe('POST /api/v1/crawl (end to end)', function () {
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
  const paths = (pages: Array<{ url: string }>) => pages.map((p) => new URL(p.url).pathname).sort();

  it('crawls the site from links and the sitemap, skips what robots.txt disallows, charges each page once and refunds the rest', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 20 });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    expect(start.body).to.include({ status: 'discovering', estimated_pages: 20, total_enqueued: 1, estimated_credits: 20 });
    const done = await waitForCrawl(api(), start.body.crawl_id, 60_000);
    expect(done.status, JSON.stringify(done)).to.equal('partial');
    const pages = await crawlResults(api(), start.body.crawl_id);
    expect(paths(pages)).to.deep.equal([
      '/',
      '/blog/launch',
      '/docs/api',
      '/docs/api/errors',
      '/docs/guide',
      '/docs/guide/install',
      '/docs/guide/install/linux',
      '/missing',
      '/orphan',
    ]);
    const missing = pages.find((p) => p.url.endsWith('/missing'));
    expect(missing).to.deep.include({ status: 'failed', credits_used: 0, result: null });
    expect(missing.error.code).to.equal('TARGET_NOT_FOUND');
    const home = pages.find((p) => new URL(p.url).pathname === '/');
    expect(home).to.include({ status: 'completed', depth: 0, credits_used: 1, tier_used: '1' });
    expect(home.result.content).to.match(/# Home/);
    expect(site.hits('/private/secret')).to.equal(0);
    expect(site.hits('/docs/guide')).to.equal(1);
    expect(done).to.include({ completed: 8, failed: 1, total: 9, in_progress: 0, current_depth: 3 });
    expect(done.billing).to.deep.include({ credits_debited: 20, credits_used: 8, credits_refunded: 12, is_byop: false });
    expect(done.billing.tier_breakdown).to.deep.equal({ '1': 8 });
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 8 * 200);
  });
});
