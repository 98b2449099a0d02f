import { expect } from 'chai';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { CAPTCHA_FIXTURES, CAPTCHA_TEXT, captchaRoutes, WALL_ROUTES, WALL_TEASER } from '../fixtures/wall-pages.js';
import { apiClient, balanceOf, escalationSteps as steps } from '../support/api.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';


/**
 * Tier 5 through the whole stack: a page held behind a captcha escalates to
 * the captcha pool, which has the local 2captcha-protocol solver solve it and
 * reads the page behind it; only tier 5 is charged. Paywalls and login walls
 * end the job with their codes, refunded.
 */
describe('the captcha tier and walls in front of content', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let accountId: string;
  let api: ReturnType<typeof apiClient>;

  before(async () => {
    stack = await getStack();
    await waitForWorkers(stack.baseUrl, 60_000, 'captcha');
    site = await startSiteServer({ routes: [...captchaRoutes(stack.captchaSolver), ...WALL_ROUTES] });
    const account = await createTestAccount(stack, 10_000_000);
    accountId = account.accountId;
    api = apiClient(stack.baseUrl, account.key);
  });
  after(async () => site?.close());

  // Waits for tier 5 rather than being handed off to polling when the job reaches the browser tiers.
  const scrape = (body: Record<string, unknown>) => api.post('/api/v1/scrape', { ...body, sync_policy: 'wait_until_deadline' });

  const tasksFor = (sitekey: string) => stack.captchaSolver.submissions.filter((f) => (f.get('googlekey') ?? f.get('sitekey')) === sitekey);

  it('escalates a reCAPTCHA v2 page from tier 1 straight to tier 5, solves it and charges the tier-5 price only', async () => {
    const before = await balanceOf(stack.pool, accountId);
    const url = `${site.url}/captcha/recaptcha-v2`;
    const res = await scrape({ url, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.content).to.contain(CAPTCHA_TEXT);
    expect(res.body.billing).to.include({ tier_used: '5', total_credits: 100 });
    expect(steps(res.body)).to.deep.equal([
      ['1', 'challenge_detected', 0],
      ['5', 'success', 100],
    ]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(before - 20_000);
    const [task] = tasksFor(CAPTCHA_FIXTURES['recaptcha-v2']!.sitekey);
    expect(Object.fromEntries(task!)).to.include({ method: 'userrecaptcha', pageurl: url, json: '1', key: stack.captchaSolver.apiKey });
  });

  const sent: Record<string, Record<string, string>> = {
    'recaptcha-v3': { method: 'userrecaptcha', version: 'v3', action: 'harbour_report' },
    hcaptcha: { method: 'hcaptcha' },
    turnstile: { method: 'turnstile', action: 'report' },
  };
  for (const [kind, params] of Object.entries(sent)) {
    it(`solves a ${kind} page on tier 5, sending the solver ${JSON.stringify(params)}, and returns the page behind it`, async () => {
      const url = `${site.url}/captcha/${kind}`;
      const res = await scrape({ url, formats: ['text'] });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
      expect(res.body.content).to.contain(CAPTCHA_TEXT);
      expect(res.body.billing.tier_used).to.equal('5');
      const [task] = tasksFor(CAPTCHA_FIXTURES[kind]!.sitekey);
      expect(Object.fromEntries(task!)).to.include({ ...params, pageurl: url });
    });
  }

  it('sends a captcha served with a 403 refusal to tier 5 too', async () => {
    const res = await scrape({ url: `${site.url}/captcha/recaptcha-v2?status=403`, formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.content).to.contain(CAPTCHA_TEXT);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'challenge_detected', 0],
      ['5', 'success', 100],
    ]);
  });

  it('reads a page its callback fills in place after the solve, though the captcha came with a 403', async () => {
    const res = await scrape({ url: `${site.url}/captcha/turnstile-inline?status=403`, formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.content).to.contain(CAPTCHA_TEXT);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'challenge_detected', 0],
      ['5', 'success', 100],
    ]);
  });

  for (const status of [429, 503]) {
    it(`sends a captcha served with ${status} to tier 5 too, charging tier 5 only`, async () => {
      const before = await balanceOf(stack.pool, accountId);
      const res = await scrape({ url: `${site.url}/captcha/turnstile?status=${status}`, formats: ['text'] });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
      expect(res.body.content).to.contain(CAPTCHA_TEXT);
      expect(steps(res.body)).to.deep.equal([
        ['1', 'challenge_detected', 0],
        ['5', 'success', 100],
      ]);
      expect(await balanceOf(stack.pool, accountId)).to.equal(before - 20_000);
    });
  }

  it('keeps a plain 429 a rate limit: escalated through the fetch tiers, never to tier 5, and refunded', async () => {
    const tasks = stack.captchaSolver.submissions.length;
    const before = await balanceOf(stack.pool, accountId);
    const res = await scrape({ url: `${site.url}/status/429`, cost_controls: { max_tier: '2' } });
    // As before: a target's rate limit is a block the next tier may pass (BLOCKED_BY_ANTIBOT, 403).
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(403);
    expect(res.body.error).to.equal('BLOCKED_BY_ANTIBOT');
    expect(res.body.billing.refunded).to.equal(true);
    expect(steps(res.body).map(([tier]) => tier)).to.deep.equal(['1', '2']);
    expect(stack.captchaSolver.submissions).to.have.length(tasks);
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });

  it('keeps tier 5 under max_tier 4: the caller caps the tiers it names, and tier 5 is automatic', async () => {
    const res = await scrape({ url: `${site.url}/captcha/recaptcha-v2`, formats: ['text'], cost_controls: { max_tier: '4' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.billing.tier_used).to.equal('5');
  });

  it('fails CHALLENGE_DETECTED, refunded, when the solver cannot solve the captcha, with both attempts listed', async () => {
    const before = await balanceOf(stack.pool, accountId);
    const res = await scrape({ url: `${site.url}/captcha/unsolvable` });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(403);
    expect(res.body.error).to.equal('CHALLENGE_DETECTED');
    expect(res.body.message).to.contain('ERROR_CAPTCHA_UNSOLVABLE');
    expect(res.body.billing.refunded).to.equal(true);
    expect(steps(res.body)).to.deep.equal([
      ['1', 'challenge_detected', 0],
      ['5', 'challenge_detected', 0],
    ]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });

  it('fails CHALLENGE_DETECTED without a tier-5 attempt when max_credits does not cover tier 5', async () => {
    const sitekey = CAPTCHA_FIXTURES['hcaptcha']!.sitekey;
    const tasks = tasksFor(sitekey).length;
    const before = await balanceOf(stack.pool, accountId);
    const res = await scrape({ url: `${site.url}/captcha/hcaptcha`, cost_controls: { max_credits: 50 } });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(403);
    expect(res.body.error).to.equal('CHALLENGE_DETECTED');
    expect(steps(res.body)).to.deep.equal([['1', 'challenge_detected', 0]]);
    expect(res.body.billing.refunded).to.equal(true);
    expect(tasksFor(sitekey)).to.have.length(tasks);
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });

  it('fails a subscription wall with 402 PAYWALL_DETECTED at tier 1, refunded, without escalating', async () => {
    const before = await balanceOf(stack.pool, accountId);
    for (const path of ['/walls/paywall', '/walls/payment-required']) {
      const res = await scrape({ url: `${site.url}${path}` });
      expect(res.status, path).to.equal(402);
      expect(res.body.error).to.equal('PAYWALL_DETECTED');
      expect(res.body.billing.refunded).to.equal(true);
      expect(steps(res.body)).to.deep.equal([['1', 'paywall_detected', 0]]);
    }
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });

  it('scrapes an article that only invites readers to subscribe', async () => {
    const res = await scrape({ url: `${site.url}/walls/newsletter-article`, formats: ['text'] });
    expect(res.status).to.equal(200);
    expect(res.body.content).to.contain(WALL_TEASER);
  });

  it('fails a redirect to a sign-in form with 401 REQUIRES_AUTH, refunded', async () => {
    const before = await balanceOf(stack.pool, accountId);
    const res = await scrape({ url: `${site.url}/walls/members/report` });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(401);
    expect(res.body.error).to.equal('REQUIRES_AUTH');
    expect(res.body.billing.refunded).to.equal(true);
    expect(steps(res.body)).to.deep.equal([['1', 'requires_auth', 0]]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(before);
  });
});
