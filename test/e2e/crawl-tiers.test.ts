import { expect } from 'chai';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { GUARDED_TEXT, RENDERED_TEXT, startTrapServer, TIER_ROUTES, type TrapServer } from '../fixtures/tier-pages.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, expectPagesAtTheirTiers, linkPage, waitForCrawl } from './crawl-support.js';

/**
 * Crawl pages fetched at the tiers their crawl plans (decision 0020): a
 * default crawl stays at tier 1, max_tier escalates a guarded page to tier 2
 * and a JavaScript shell to the first browser tier, render_js loads every
 * page in the browser, each page is charged at the tier that fetched it, and
 * the browser's requests pass the SSRF guard.
 */
describe('crawl tiers (end to end)', function () {
  this.timeout(180_000);
  /** The stack, the fixture site, the private-address trap and an account with its client. */
  let t: { stack: TestStack; site: SiteServer; trap: TrapServer; accountId: string; api: ReturnType<typeof apiClient> };

  before(async () => {
    const stack = await getStack();
    const trap = await startTrapServer();
    const toTrap = encodeURIComponent(`${trap.url}/admin`);
    const site = await startSiteServer({
      routes: [
        linkPage('/', 'Harbour home', ['/plain', '/tiers/client-hints', '/tiers/js-app']),
        linkPage('/plain', 'Harbour plain', []),
        linkPage('/ssrf', 'Harbour links', [`/tiers/private-subresources?trap=${encodeURIComponent(trap.url)}`, `/redirect/to?url=${toTrap}`]),
        ...TIER_ROUTES,
      ],
    });
    const account = await createTestAccount(stack, 10_000_000);
    t = { stack, site, trap, accountId: account.accountId, api: apiClient(stack.baseUrl, account.key) };
  });
  after(async () => {
    await t?.site.close();
    await t?.trap.close();
  });

  const byPath = (pages: Array<{ url: string }>) => new Map(pages.map((p: any) => [new URL(p.url).pathname, p]));

  /** The crawl's ledger entries: what it reserved, less what it refunded, is what it cost. */
  async function netCharge(crawlId: string): Promise<number> {
    const res = await t.stack.pool.query<{ net: string }>('SELECT coalesce(sum(amount_microcents), 0)::bigint AS net FROM ledger_entries WHERE reference LIKE $1', [`crawl:${crawlId}:%`]);
    return -Number(res.rows[0]!.net);
  }

  async function crawl(body: Record<string, unknown>) {
    const before = await balanceOf(t.stack.pool, t.accountId);
    const start = await t.api.post('/api/v1/crawl', { url: `${t.site.url}/`, sitemap: 'skip', max_pages: 10, ...body });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    const done = await waitForCrawl(t.api, start.body.crawl_id, 150_000);
    const pages = byPath(await crawlResults(t.api, start.body.crawl_id));
    const spent = before - (await balanceOf(t.stack.pool, t.accountId));
    return { start: start.body, done, pages, spent, ledger: await netCharge(start.body.crawl_id) };
  }

  it('keeps a default crawl at tier 1: a guarded page fails unescalated and unpaid, a JavaScript shell is taken as fetched', async () => {
    const { start, done, pages, spent, ledger } = await crawl({});
    expect(start.estimated_credits).to.equal(10);
    expect(pages.get('/tiers/client-hints')).to.deep.include({ status: 'failed', credits_used: 0, tier_used: '1' });
    expect(pages.get('/tiers/client-hints').error.code).to.equal('BLOCKED');
    expect(pages.get('/tiers/js-app')).to.include({ status: 'completed', tier_used: '1', credits_used: 1 });
    expect(pages.get('/tiers/js-app').result.content).not.to.contain(RENDERED_TEXT);
    expect(done.billing).to.deep.include({ credits_debited: 10, credits_used: 3, credits_refunded: 7 });
    expect(done.billing.tier_breakdown).to.deep.equal({ '1': 3 });
    expect(spent).to.equal(3 * 200);
    expect(ledger).to.equal(3 * 200);
  });

  it('escalates with max_tier 4: the guarded page to tier 2, the JavaScript shell to the first browser tier, each charged at its tier', async () => {
    const { start, done, pages, spent, ledger } = await crawl({ cost_controls: { max_tier: '4' } });
    // Every planned page reserves the dearest planned tier, the browser's 20 credits.
    expect(start.estimated_credits).to.equal(10 * 20);
    expect(done.status, JSON.stringify(done).slice(0, 600)).to.equal('completed');
    expectPagesAtTheirTiers(pages);
    expect(done.billing.tier_breakdown).to.deep.equal({ '1': 2, '2': 1, '3': 1 });
    expect(done.billing).to.deep.include({ credits_debited: 200, credits_used: 13.5, credits_refunded: 186.5 });
    expect(spent).to.equal(200 + 200 + 300 + 2_000);
    expect(ledger).to.equal(spent);
  });

  it('spends what cheaper pages left of max_credits on more pages, never taking one it could not pay at the dearest tier', async () => {
    // 40 credits cover two pages at the browser's 20; the pages cost 1, 1, 1.5 and 10, so all four fit.
    const { start, done, pages, spent, ledger } = await crawl({ cost_controls: { max_tier: '4', max_credits: 40 } });
    expect(start).to.include({ estimated_pages: 2, estimated_credits: 40 });
    expect(start.message).to.contain('up to 10');
    expect(done.status, JSON.stringify(done).slice(0, 600)).to.equal('completed');
    expectPagesAtTheirTiers(pages);
    expect(done.billing.tier_breakdown).to.deep.equal({ '1': 2, '2': 1, '3': 1 });
    expect(done.billing).to.deep.include({ credits_debited: 40, credits_used: 13.5, credits_refunded: 26.5 });
    expect(spent).to.equal(2_700);
    expect(ledger).to.equal(spent);

    // 20 credits cover the start page at the dearest tier; what it leaves (19) does not cover another page at 20.
    const tight = await crawl({ cost_controls: { max_tier: '4', max_credits: 20 } });
    expect(tight.start).to.include({ estimated_pages: 1, estimated_credits: 20 });
    expect(tight.done.completed).to.equal(1);
    expect(tight.done.billing).to.deep.include({ credits_debited: 20, credits_used: 1, credits_refunded: 19 });
    expect(tight.ledger).to.equal(200);
  });

  it('loads every page in the browser with render_js, at the browser price and the screenshot add-on, with a screenshot when asked', async () => {
    const { start, done, pages, spent } = await crawl({ advanced: { render_js: true, screenshot: true } });
    expect(start.estimated_credits).to.equal(10 * 21);
    expect(done.status, JSON.stringify(done).slice(0, 600)).to.equal('completed');
    expect(pages.get('/tiers/js-app')).to.include({ status: 'completed', tier_used: '4', credits_used: 21 });
    expect(pages.get('/tiers/js-app').result.content).to.contain(RENDERED_TEXT);
    const shot = await fetch(pages.get('/tiers/js-app').result.screenshot_url);
    expect(shot.status).to.equal(200);
    expect(shot.headers.get('content-type')).to.match(/image\/png/);
    // The browser sends the client hints the guard asks for.
    expect(pages.get('/tiers/client-hints')).to.include({ status: 'completed', tier_used: '4' });
    expect([...pages.values()].map((p: any) => p.tier_used)).to.deep.equal(['4', '4', '4', '4']);
    expect(done.billing.tier_breakdown).to.deep.equal({ '4': 4 });
    expect(done.billing.credits_used).to.equal(84);
    expect(spent).to.equal(4 * (4_000 + 200));
  });

  it('runs every page at the forced tier with force_tier', async () => {
    const { done, pages, spent } = await crawl({ cost_controls: { force_tier: '2' } });
    expect(pages.get('/tiers/client-hints')).to.include({ status: 'completed', tier_used: '2' });
    expect(done.billing.tier_breakdown).to.deep.equal({ '2': 4 });
    expect(spent).to.equal(4 * 300);
  });

  it('lets no request of a browser-loaded page reach a private address, and refuses a redirect there unpaid', async () => {
    const { pages, spent } = await crawl({ url: `${t.site.url}/ssrf`, advanced: { render_js: true } });
    const subresources = pages.get('/tiers/private-subresources');
    expect(subresources).to.include({ status: 'completed', tier_used: '4' });
    expect(subresources.result.content).to.contain(GUARDED_TEXT);
    const redirect = pages.get('/redirect/to');
    expect(redirect).to.deep.include({ status: 'failed', credits_used: 0 });
    expect(redirect.error.code).to.equal('URL_NOT_ALLOWED');
    expect(t.trap.hits()).to.equal(0);
    expect(spent).to.equal(2 * 4_000);
  });
});
