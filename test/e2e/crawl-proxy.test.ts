import { expect } from 'chai';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { startTrapServer, TIER_ROUTES, type TrapServer } from '../fixtures/tier-pages.js';
import { apiClient, balanceOf } from '../support/api.js';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.js';
import { restartRoles } from '../support/restart-roles.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, expectPagesAtTheirTiers, linkPage, waitForCrawl } from './crawl-support.js';

/**
 * A crawl's advanced.use_proxy (SPEC 2.10): every page fetch, at every tier
 * the crawl plans, and its robots.txt and sitemaps leave through the premium
 * proxy network behind the SSRF guard, and each completed page pays the
 * 1-credit add-on on top of its tier.
 */
describe('crawl through the premium proxy network (end to end)', function () {
  this.timeout(240_000);
  const ROLES = ['control-plane', 'crawl'] as const;
  let stack: TestStack;
  let site: SiteServer;
  let trap: TrapServer;
  let premium: ConnectProxy;
  let accountId: string;
  let api: ReturnType<typeof apiClient>;
  const PAGES = ['/', '/plain', '/tiers/client-hints', '/tiers/js-app'];

  before(async () => {
    stack = await getStack();
    trap = await startTrapServer();
    site = await startSiteServer({
      routes: [
        linkPage('/', 'Harbour home', ['/plain', '/tiers/client-hints', '/tiers/js-app', `/redirect/to?url=${encodeURIComponent(`${trap.url}/admin`)}`]),
        linkPage('/plain', 'Harbour plain', []),
        ...TIER_ROUTES,
      ],
    });
    premium = await startConnectProxy({ username: 'pool', password: 'premium-secret' });
    const account = await createTestAccount(stack, 10_000_000);
    accountId = account.accountId;
    api = apiClient(stack.baseUrl, account.key);
  });
  after(async () => {
    await site?.close();
    await trap?.close();
    await premium?.close();
  });

  const start = (body: Record<string, unknown>) => api.post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip', max_pages: 10, ...body });
  const show = (res: { body: unknown }) => JSON.stringify(res.body).slice(0, 600);

  it('refuses use_proxy with 400 before reserving anything when no premium network is configured', async () => {
    const before = await balanceOf(stack.pool, accountId);
    const res = await start({ advanced: { use_proxy: true } });
    expect(res.status, show(res)).to.equal(400);
    expect(res.body.error).to.equal('VALIDATION_ERROR');
    expect(res.body.message).to.contain('no premium proxy network is configured');
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });

  it('refuses the scrape-only proxy and location options, which a crawl request does not take', async () => {
    for (const extra of [{ advanced: { use_own_proxy: true, proxy_url: 'http://u:p@10.0.0.7:3128' } }, { location: { country: 'DE' } }]) {
      const res = await start(extra);
      expect(res.status, show(res)).to.equal(400);
      expect(JSON.stringify(res.body)).not.to.contain('u:p@');
    }
  });

  it("never serves a page cached by a crawl with headers to another account's crawl", async () => {
    const other = await createTestAccount(stack, 1_000_000);
    const otherApi = apiClient(stack.baseUrl, other.key);
    const body = { url: `${site.url}/plain`, max_pages: 1, max_depth: 0, cache: true, headers: { Authorization: 'Bearer harbour-7' } };
    const crawlOf = async (client: typeof api) => {
      const res = await client.post('/api/v1/crawl', { sitemap: 'skip', ...body });
      expect(res.status, show(res)).to.equal(202);
      return waitForCrawl(client, res.body.crawl_id, 60_000);
    };
    expect((await crawlOf(api)).billing.tier_breakdown).to.deep.equal({ '1': 1 });
    expect((await crawlOf(api)).billing.tier_breakdown).to.deep.equal({ cache: 1 });
    expect((await crawlOf(otherApi)).billing.tier_breakdown).to.deep.equal({ '1': 1 });
  });

  describe('with a premium proxy network', () => {
    before(async () => {
      await restartRoles(stack, ROLES, { TRAWL_PREMIUM_PROXY_URLS: premium.url });
    });
    after(async () => {
      await restartRoles(stack, ROLES);
    });
    beforeEach(() => premium.reset());

    it('fetches every page at every tier through the proxy, refuses a redirect to a private address, and charges 1 credit a page on top of its tier', async () => {
      const before = await balanceOf(stack.pool, accountId);
      const PATHS = [...PAGES, '/robots.txt'];
      const hitsBefore = new Map(PATHS.map((path) => [path, site.hits(path)]));
      const hitsOf = (paths: string[]) => paths.reduce((n, path) => n + site.hits(path) - hitsBefore.get(path)!, 0);
      const started = await start({ cost_controls: { max_tier: '4' }, advanced: { use_proxy: true } });
      expect(started.status, show(started)).to.equal(202);
      // Each planned page reserves the dearest planned tier (20 credits) and the add-on (1).
      expect(started.body.estimated_credits).to.equal(10 * 21);
      const done = await waitForCrawl(api, started.body.crawl_id, 200_000);
      const pages = new Map((await crawlResults(api, started.body.crawl_id)).map((p: any) => [new URL(p.url).pathname, p]));

      // Each page at its tier, plus the add-on's credit.
      expectPagesAtTheirTiers(pages, 1);
      const redirect = pages.get('/redirect/to');
      expect(redirect).to.deep.include({ status: 'failed', credits_used: 0 });
      expect(redirect.error.code).to.equal('URL_NOT_ALLOWED');

      // Every request the site answered, robots.txt and escalations included, came through a tunnel of the proxy.
      const target = `127.0.0.1:${site.port}`;
      expect(hitsOf(PAGES)).to.be.at.least(PAGES.length + 2);
      expect(hitsOf(['/robots.txt'])).to.be.at.least(1);
      expect(premium.tunnels.filter((t) => t === target).length).to.be.at.least(hitsOf(PATHS));
      expect(premium.refusedAuth).to.equal(0);
      expect(trap.hits()).to.equal(0);
      expect(premium.tunnels.filter((t) => t === new URL(trap.url).host)).to.deep.equal([]);

      const used = (200 + 200) * 2 + (300 + 200) + (2_000 + 200);
      expect(done.billing).to.deep.include({ credits_debited: 210, credits_used: used / 200, credits_refunded: 210 - used / 200 });
      expect(before - (await balanceOf(stack.pool, accountId))).to.equal(used);
    });

    it('keeps pages cached through the proxy apart from pages cached directly', async () => {
      const crawlOf = async (advanced: Record<string, unknown> | null) => {
        const res = await start({ url: `${site.url}/plain?cache=proxy`, max_pages: 1, max_depth: 0, cache: true, advanced });
        expect(res.status, show(res)).to.equal(202);
        return waitForCrawl(api, res.body.crawl_id, 60_000);
      };
      expect((await crawlOf({ use_proxy: true })).billing.tier_breakdown).to.deep.equal({ '1': 1 });
      expect((await crawlOf(null)).billing.tier_breakdown).to.deep.equal({ '1': 1 });
      expect((await crawlOf({ use_proxy: true })).billing.tier_breakdown).to.deep.equal({ cache: 1 });
    });

    it('sends nothing through the proxy for a crawl without use_proxy', async () => {
      const started = await start({ max_pages: 2 });
      expect(started.status, show(started)).to.equal(202);
      const done = await waitForCrawl(api, started.body.crawl_id, 60_000);
      expect(done.completed).to.equal(2);
      expect(premium.tunnels).to.deep.equal([]);
    });
  });
});
