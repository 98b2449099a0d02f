import { expect } from 'chai';
import { API_JSON, ARTICLE_TITLE, startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { BANNER_TEXT, GUARDED_TEXT, RECIPE_TEXT, LATE_TEXT, RENDERED_TEXT, SCROLL_ITEMS, startTrapServer, TIER_ROUTES, type TrapServer } from '../fixtures/tier-pages.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';

/**
 * The browser pool (tier 4) through the whole stack: rendering, waiting,
 * scrolling, cookies, banners, blocked requests, and the SSRF guard on every
 * request the browser makes. Sync requests that start on the browser are
 * handed off at once under sync_policy auto, so these wait to the deadline.
 */
describe('the browser tier (tier 4)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let trap: TrapServer;
  let account: { accountId: string; key: string };
  let api: ReturnType<typeof apiClient>;

  before(async () => {
    stack = await getStack();
    await waitForWorkers(stack.baseUrl, 60_000, 'browser');
    site = await startSiteServer({ routes: TIER_ROUTES });
    trap = await startTrapServer();
    account = await createTestAccount(stack, 10_000_000);
    api = apiClient(stack.baseUrl, account.key);
  });
  after(async () => {
    await site?.close();
    await trap?.close();
  });

  const render = (path: string, extra: Record<string, unknown> = {}) =>
    api.post('/api/v1/scrape', {
      url: `${site.url}${path}`,
      formats: ['markdown'],
      sync_policy: 'wait_until_deadline',
      ...extra,
      advanced: { render_js: true, ...((extra['advanced'] as object) ?? {}) },
    });

  it('renders a JavaScript application and charges the browser price once', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await render('/tiers/js-app');
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(RENDERED_TEXT);
    expect(res.body.billing.tier_used).to.equal('4');
    expect(res.body.billing.total_credits).to.equal(20);
    expect(res.body.billing.escalations.map((e: { tier: string; result: string }) => [e.tier, e.result])).to.deep.equal([['4', 'success']]);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 4_000);
  });

  it('runs mode js on the browser as well', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/js-app`, mode: 'js', formats: ['text'], sync_policy: 'wait_until_deadline' });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(RENDERED_TEXT);
    expect(res.body.billing.tier_used).to.equal('4');
  });

  it('waits for a late element named by wait_for, and reads the page without it otherwise', async () => {
    const waited = await render('/tiers/late', { wait_for: '#late' });
    expect(waited.status, JSON.stringify(waited.body).slice(0, 400)).to.equal(200);
    expect(waited.body.content).to.contain(LATE_TEXT);
    const hurried = await render('/tiers/late', { wait_until: 'domcontentloaded', enable_scroll: false });
    expect(hurried.status).to.equal(200);
    expect(hurried.body.content).not.to.contain(LATE_TEXT);
  });

  it('answers TIMEOUT, refunded, when the wait_for element never appears before the timeout', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await render('/tiers/late', { wait_for: '#never-there', timeout: 3 });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(504);
    expect(res.body.error).to.equal('TIMEOUT');
    expect(res.body.billing.refunded).to.equal(true);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });

  it('waits for wait_for as long as wait_for_timeout says, within the request timeout', async () => {
    const res = await render('/tiers/late', { wait_for: '#never-there', wait_for_timeout: 2, timeout: 60 });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(504);
    expect(res.body.error).to.equal('TIMEOUT');
    expect(res.body.message).to.contain('within 2 s');
  });

  it('scrolls an infinite feed to its end with enable_scroll, and not at all with enable_scroll false', async () => {
    const scrolled = await render('/tiers/infinite', { enable_scroll: true });
    expect(scrolled.status, JSON.stringify(scrolled.body).slice(0, 400)).to.equal(200);
    for (let n = 1; n <= SCROLL_ITEMS; n++) expect(scrolled.body.content).to.contain(`Feed item ${n} of the harbour log`);
    const still = await render('/tiers/infinite', { enable_scroll: false });
    expect(still.body.content).to.contain('Feed item 1 of');
    expect(still.body.content).not.to.contain('Feed item 2 of');
  });

  it('removes cookie banners by default, not a dialog that only mentions cookies, and keeps banners with remove_cookie_banners false', async () => {
    const removed = await render('/tiers/cookie-banner', { formats: ['text'], advanced: { only_main_content: false } });
    expect(removed.status, JSON.stringify(removed.body).slice(0, 400)).to.equal(200);
    expect(removed.body.content).to.contain(GUARDED_TEXT);
    expect(removed.body.content).not.to.contain(BANNER_TEXT);
    expect(removed.body.content).to.contain(RECIPE_TEXT);
    const kept = await render('/tiers/cookie-banner', { formats: ['text'], advanced: { only_main_content: false, remove_cookie_banners: false } });
    expect(kept.body.content).to.contain(BANNER_TEXT);
  });

  it('sends the cookies of advanced.cookies to the page', async () => {
    const res = await render('/tiers/cookie-echo', { formats: ['text'], advanced: { cookies: { harbour_session: 'tide42' } } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain('harbour_session=tide42');
  });

  it('never requests fonts or media, while the scripts a page needs still run', async () => {
    const res = await render('/tiers/assets-page');
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(site.hits('/tiers/assets/app.js')).to.be.greaterThan(0);
    expect(site.hits('/tiers/assets/harbour.woff2')).to.equal(0);
    expect(site.hits('/tiers/assets/clip.mp4')).to.equal(0);
  });

  it('keeps a screenshot and a PDF of the page at unguessable URLs served without a key', async () => {
    const res = await render('/tiers/js-app', { advanced: { screenshot: true, generate_pdf: true } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    const prefix = `${stack.baseUrl}/api/v1/artifacts/`;
    expect(res.body.screenshot_url).to.match(new RegExp(`^${prefix}[A-Za-z0-9_-]{32}\\.png$`));
    expect(res.body.pdf_url).to.match(new RegExp(`^${prefix}[A-Za-z0-9_-]{32}\\.pdf$`));
    const png = await fetch(res.body.screenshot_url);
    expect(png.status).to.equal(200);
    expect(png.headers.get('content-type')).to.equal('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(0, 8).toString('latin1')).to.equal('\x89PNG\r\n\x1a\n');
    const pdf = await fetch(res.body.pdf_url);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    const plain = await render('/tiers/js-app');
    expect(plain.body).to.include({ screenshot_url: null, pdf_url: null });
  });

  it('answers 404 for an artifact name that was never given out, well-formed or not', async () => {
    for (const name of [`${'A'.repeat(32)}.png`, 'x.png', '..%2F..%2Fetc%2Fpasswd']) {
      const res = await fetch(`${stack.baseUrl}/api/v1/artifacts/${name}`);
      expect(res.status, name).to.equal(404);
      expect(((await res.json()) as { error: string }).error).to.equal('NOT_FOUND');
    }
  });

  it('reads a JSON API and a PDF the browser is sent to as served, as the HTTP tiers do', async () => {
    const api_ = await render('/api/json', { formats: ['json', 'markdown'] });
    expect(api_.status, JSON.stringify(api_.body).slice(0, 400)).to.equal(200);
    expect(api_.body.extraction_method).to.equal('raw_json_api');
    expect(api_.body.content.json).to.deep.equal(API_JSON);
    expect(api_.body.billing.tier_used).to.equal('4');
    const pdf = await render('/pdf');
    expect(pdf.status, JSON.stringify(pdf.body).slice(0, 400)).to.equal(200);
    expect(pdf.body.content).to.contain('Harbour report');
    expect(pdf.body.billing.tier_used).to.equal('4');    // mode js renders as render_js does, and reads the PDF the same way.
    const viaMode = await api.post('/api/v1/scrape', { url: `${site.url}/pdf`, mode: 'js', formats: ['markdown'], sync_policy: 'wait_until_deadline' });
    expect(viaMode.status, JSON.stringify(viaMode.body).slice(0, 400)).to.equal(200);
    expect(viaMode.body.content).to.contain('Harbour report');
  });

  it('answers a file the browser would download with 415 UNSUPPORTED_CONTENT_TYPE, refunded, as the HTTP tiers do', async () => {
    for (const tier of ['3', '4']) {
      const res = await api.post('/api/v1/scrape', { url: `${site.url}/archive.zip`, formats: ['markdown'], sync_policy: 'wait_until_deadline', cost_controls: { force_tier: tier } });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(415);
      expect(res.body.error).to.equal('UNSUPPORTED_CONTENT_TYPE');
      expect(res.body.billing.refunded).to.equal(true);
    }
  });

  it('reads a page that sends itself on by script while it is read at the document it lands on', async () => {
    const res = await render('/tiers/moves-on', { formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(ARTICLE_TITLE);
    expect(res.body.final_url).to.equal(`${site.url}/article`);
  });

  describe('the SSRF guard on every request the browser makes', () => {
    it('fails a page that sends itself by script to a private address with URL_NOT_ALLOWED, refunded, never answering the error page', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await render(`/tiers/moves-on?when=now&to=${encodeURIComponent(`${trap.url}/admin`)}`, { formats: ['text'] });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(400);
      expect(res.body.error).to.equal('URL_NOT_ALLOWED');
      expect(res.body.billing.refunded).to.equal(true);
      expect(trap.hits()).to.equal(0);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('lets no sub-resource of a page reach a private address, and still answers the page', async () => {
      const res = await render(`/tiers/private-subresources?trap=${encodeURIComponent(trap.url)}`, { wait_until: 'networkidle' });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
      expect(res.body.content).to.contain(GUARDED_TEXT);
      expect(trap.hits()).to.equal(0);
    });

    it('refuses a redirect to a private address with URL_NOT_ALLOWED, refunded, without reaching it', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await render(`/redirect/to?url=${encodeURIComponent(`${trap.url}/admin`)}`);
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(400);
      expect(res.body.error).to.equal('URL_NOT_ALLOWED');
      expect(res.body.billing.refunded).to.equal(true);
      expect(trap.hits()).to.equal(0);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('refuses a private target outright', async () => {
      const res = await render('', { url: `${trap.url}/` });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(400);
      expect(res.body.error).to.equal('URL_NOT_ALLOWED');
      expect(trap.hits()).to.equal(0);
    });
  });
});
