import { expect } from 'chai';
import { ARTICLE_TITLE, startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { GUARDED_TEXT, RENDERED_TEXT, STEALTH_TEXT, TIER_ROUTES } from '../fixtures/tier-pages.js';
import { startTlsFingerprintServer, type TlsFingerprintServer } from '../fixtures/tls-fingerprint-server.js';
import { apiClient, balanceOf, escalationSteps as steps, pollJob } from '../support/api.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';


/**
 * Escalation through the whole stack: each fixture yields only to the right
 * tier, every attempt is listed in billing.escalations, and only the tier
 * that succeeded is charged.
 */
describe('escalation between the fetch tiers', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let tlsGuarded: TlsFingerprintServer;
  let account: { accountId: string; key: string };
  let api: ReturnType<typeof apiClient>;

  before(async () => {
    stack = await getStack();
    await waitForWorkers(stack.baseUrl, 60_000, 'fetch-t2');
    await waitForWorkers(stack.baseUrl, 60_000, 'fetch-t3');
    await waitForWorkers(stack.baseUrl, 60_000, 'browser');
    site = await startSiteServer({ routes: TIER_ROUTES });
    tlsGuarded = await startTlsFingerprintServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><head><title>Fingerprinted</title></head><body><article><h1>Fingerprinted</h1><p>${GUARDED_TEXT}</p></article></body></html>`);
    });
  });
  // Each case on an account of its own: an escalation teaches the account's next scrapes of the host where to start.
  beforeEach(async () => {
    account = await createTestAccount(stack, 10_000_000);
    api = apiClient(stack.baseUrl, account.key);
  });
  after(async () => {
    await site?.close();
    await tlsGuarded?.close();
  });

  it('serves a static page from tier 1 without escalating', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status).to.equal(200);
    expect(res.body.content).to.contain(ARTICLE_TITLE);
    expect(steps(res.body)).to.deep.equal([['1', 'success', 1]]);
  });

  it('escalates a page refusing clients without client hints from tier 1 to tier 2, charging tier 2 only', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/client-hints`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(GUARDED_TEXT);
    expect(res.body.billing.tier_used).to.equal('2');
    expect(steps(res.body)).to.deep.equal([
      ['1', 'blocked', 0],
      ['2', 'success', 1.5],
    ]);
    expect(res.body.billing.total_credits).to.equal(1.5);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 300);
  });

  it('escalates a site that refuses a non-browser TLS ClientHello from tier 1 to tier 2', async () => {
    const seen = tlsGuarded.hellos.length;
    const res = await api.post('/api/v1/scrape', { url: `${tlsGuarded.url}/`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(GUARDED_TEXT);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'blocked', 0],
      ['2', 'success', 1.5],
    ]);
    // The guard judged two handshakes: tier 1's, refused, and tier 2's browser hello.
    expect(tlsGuarded.hellos.length).to.be.at.least(seen + 2);
    const refused = await api.post('/api/v1/scrape', { url: `${tlsGuarded.url}/`, cost_controls: { max_tier: '1' } });
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.equal('BLOCKED_BY_ANTIBOT');
  });

  it("starts the account's next scrape of the host at the tier that worked, and from tier 1 again with prefer_cost", async () => {
    const first = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/client-hints`, formats: ['markdown'] });
    expect(steps(first.body)).to.deep.equal([
      ['1', 'blocked', 0],
      ['2', 'success', 1.5],
    ]);
    const again = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/client-hints?page=2`, formats: ['markdown'] });
    expect(again.status, JSON.stringify(again.body).slice(0, 400)).to.equal(200);
    expect(steps(again.body)).to.deep.equal([['2', 'success', 1.5]]);
    // The estimate starts where the scrape would.
    const estimate = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/tiers/client-hints?page=3` });
    expect(estimate.body).to.include({ estimated_tier: '2', estimated_credits: 1.5 });
    const cheap = await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'], cost_controls: { prefer_cost: true } });
    expect(steps(cheap.body)).to.deep.equal([['1', 'success', 1]]);
    // Another account has learned nothing about the host.
    const other = apiClient(stack.baseUrl, (await createTestAccount(stack, 10_000)).key);
    expect(steps((await other.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] })).body)).to.deep.equal([['1', 'success', 1]]);
  });

  it('runs the guarded page on tier 2 directly with force_tier 2', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/client-hints`, formats: ['text'], cost_controls: { force_tier: '2' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(steps(res.body)).to.deep.equal([['2', 'success', 1.5]]);
  });

  it('fails BLOCKED_BY_ANTIBOT, refunded, when max_tier stops below the tier that would pass', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/client-hints`, cost_controls: { max_tier: '1' } });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.equal('BLOCKED_BY_ANTIBOT');
    expect(res.body.billing.refunded).to.equal(true);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });

  it('sends a JavaScript-only shell from tier 1 straight to the first browser tier (3), skipping tier 2, charging that tier only', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/js-app`, formats: ['markdown'], sync_policy: 'wait_until_deadline' });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(RENDERED_TEXT);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'js_shell', 0],
      ['3', 'success', 10],
    ]);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 2_000);
  });

  it('passes a script challenge that checks navigator.webdriver on the stealth tier only', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/script-challenge`, formats: ['text'], sync_policy: 'wait_until_deadline' });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(STEALTH_TEXT);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'js_shell', 0],
      ['3', 'success', 10],
    ]);
    const plain = await api.post('/api/v1/scrape', {
      url: `${site.url}/tiers/script-challenge`,
      formats: ['text'],
      sync_policy: 'wait_until_deadline',
      cost_controls: { force_tier: '4' },
    });
    expect(plain.status, JSON.stringify(plain.body).slice(0, 400)).to.equal(200);
    expect(plain.body.content).to.contain('Automated browser detected');
    expect(plain.body.content).not.to.contain(STEALTH_TEXT);
  });

  it('waits on the stealth tier for a bot challenge that reloads into the page after a few seconds', async () => {
    const res = await api.post('/api/v1/scrape', {
      url: `${site.url}/tiers/delayed-challenge?ms=3000`,
      formats: ['text'],
      sync_policy: 'wait_until_deadline',
      cost_controls: { force_tier: '3' },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain(STEALTH_TEXT);
  });

  it('does the same for render_js auto, handing a waiting sync request off with 202 when the browser is needed', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/js-app`, formats: ['markdown'], advanced: { render_js: 'auto' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(202);
    const job = await pollJob(api, res.body.poll_url, 60_000);
    expect(job.status).to.equal('succeeded');
    expect(job.tier).to.equal('3');
  });

  it('keeps the shell from tier 1 when render_js is false', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/js-app`, formats: ['text'], advanced: { render_js: false } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).not.to.contain(RENDERED_TEXT);
    expect(steps(res.body)).to.deep.equal([['1', 'success', 1]]);
  });

  it('keeps the shell when max_tier leaves no browser to escalate to', async () => {
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/tiers/js-app`, formats: ['text'], cost_controls: { max_tier: '2' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(steps(res.body)).to.deep.equal([['1', 'success', 1]]);
  });

  it('keeps a POST on the HTTP tiers: a shell stays a shell, and a browser asked for with it is refused, charging nothing', async () => {
    const post = { method: 'POST', body: '{"q":1}', content_type: 'application/json', formats: ['text'], sync_policy: 'wait_until_deadline' };
    const shell = await api.post('/api/v1/scrape', { ...post, url: `${site.url}/tiers/js-app` });
    expect(shell.status, JSON.stringify(shell.body).slice(0, 400)).to.equal(200);
    expect(shell.body.content).not.to.contain(RENDERED_TEXT);
    expect(steps(shell.body)).to.deep.equal([['1', 'success', 1]]);
    const before = await balanceOf(stack.pool, account.accountId);
    for (const refused of [
      { ...post, url: `${site.url}/tiers/js-app`, cost_controls: { force_tier: '4' } },
      { ...post, url: `${site.url}/tiers/js-app`, advanced: { render_js: true } },
      { ...post, url: `${site.url}/tiers/js-app`, mode: 'js' },
    ]) {
      const res = await api.post('/api/v1/scrape', refused);
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('method');
    }
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });
});
