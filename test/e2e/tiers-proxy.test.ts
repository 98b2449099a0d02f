import { expect } from 'chai';
import { ECHO_TEXT, PROXY_ROUTES } from '../fixtures/proxy-pages.js';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { GUARDED_TEXT, startTrapServer, TIER_ROUTES, type TrapServer } from '../fixtures/tier-pages.js';
import { apiClient, balanceOf } from '../support/api.js';
import { closedPort } from '../support/closed-port.js';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.js';
import { restartRoles } from '../support/restart-roles.js';
import { startSocks5Proxy } from '../support/socks5-proxy.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';

/**
 * Upstream proxies (advanced.use_proxy, use_own_proxy), tier 3.5, location
 * and the add-on prices through the whole stack, with local HTTP CONNECT
 * proxies that record the tunnels they open and check credentials.
 */
describe('proxies, location, tier 3.5 and add-ons', function () {
  this.timeout(180_000);
  let stack: TestStack;
  let site: SiteServer;
  let trap: TrapServer;
  let own: ConnectProxy;
  let account: { accountId: string; key: string };
  let api: ReturnType<typeof apiClient>;
  const target = () => `127.0.0.1:${site.port}`;

  before(async () => {
    stack = await getStack();
    await waitForWorkers(stack.baseUrl, 60_000, 'browser');
    site = await startSiteServer({ routes: [...PROXY_ROUTES, ...TIER_ROUTES] });
    trap = await startTrapServer();
    own = await startConnectProxy({ username: 'caller', password: 'own-secret-7' });
    account = await createTestAccount(stack, 10_000_000);
    api = apiClient(stack.baseUrl, account.key);
    await warmUp();
  });
  after(async () => {
    await site?.close();
    await trap?.close();
    await own?.close();
  });

  const scrape = (body: Record<string, unknown>) =>
    api.post('/api/v1/scrape', { url: `${site.url}/proxy/echo`, formats: ['text'], sync_policy: 'wait_until_deadline', ...body });
  // A pool's first document starts its pipeline threads, which on a loaded machine can outlast the test budget.
  const warmUp = async () => {
    for (const tier of ['1', '2', '3', '4']) await scrape({ cost_controls: { force_tier: tier } });
  };
  const show = (res: { body: unknown }) => JSON.stringify(res.body).slice(0, 500);

  describe('on a service without a premium proxy network', () => {
    it('refuses use_proxy with 400 before charging anything', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ advanced: { use_proxy: true } });
      expect(res.status, show(res)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.message).to.contain('no premium proxy network is configured');
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
      // The estimate refuses it as the scrape does.
      const estimate = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/proxy/echo`, advanced: { use_proxy: true } });
      expect(estimate.status, show(estimate)).to.equal(400);
      expect(estimate.body.error).to.equal('VALIDATION_ERROR');
    });

    it('plans around tier 3.5, and answers 503 when it is forced', async () => {
      const estimate = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/proxy/echo` });
      expect(estimate.status, show(estimate)).to.equal(200);
      // The suites' stack has a captcha solver, so tier 5 ends the plan.
      expect(estimate.body.tier_plan).to.deep.equal(['1', '2', '3', '4', '5']);
      const forced = await scrape({ cost_controls: { force_tier: '3.5' } });
      expect(forced.status, show(forced)).to.equal(503);
      expect(forced.body.error).to.equal('SERVICE_UNAVAILABLE');
    });
  });

  describe("through the caller's own proxy", () => {
    for (const tier of ['1', '2', '3', '4']) {
      it(`sends tier ${tier}'s connections through it with its credentials, and charges 4 credits more`, async () => {
        own.reset();
        const before = await balanceOf(stack.pool, account.accountId);
        const res = await scrape({ cost_controls: { force_tier: tier }, advanced: { use_own_proxy: true, proxy_url: own.url, only_main_content: false } });
        expect(res.status, show(res)).to.equal(200);
        expect(res.body.content).to.contain(ECHO_TEXT);
        expect(own.tunnels).to.include(target());
        expect(own.refusedAuth).to.equal(0);
        const price = { '1': 200, '2': 300, '3': 2_000, '4': 4_000 }[tier]! + 800;
        expect(res.body.billing.total_credits).to.equal(price / 200);
        expect(res.body.billing.add_ons).to.deep.equal({ use_own_proxy: 4 });
        expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - price);
        // The proxy's credentials are never shown back.
        expect(JSON.stringify(res.body)).not.to.contain('own-secret-7');
        const polled = await api.get(`/api/v1/jobs/${res.body.job_id}`);
        expect(JSON.stringify(polled.body)).not.to.contain('own-secret-7');
      });
    }

    it("speaks SOCKS5 with username and password to the caller's SOCKS5 proxy", async () => {
      const socks = await startSocks5Proxy({ username: 'caller', password: 'socks-secret' });
      try {
        for (const tier of ['1', '4']) {
          const res = await scrape({ cost_controls: { force_tier: tier }, advanced: { use_own_proxy: true, proxy_url: socks.url } });
          expect(res.status, show(res)).to.equal(200);
          expect(res.body.content).to.contain(ECHO_TEXT);
        }
        expect(socks.tunnels).to.include(target());
        expect(socks.refusedAuth).to.equal(0);
      } finally {
        await socks.close();
      }
    });

    it('fails refunded when the proxy refuses the credentials', async () => {
      own.reset();
      const before = await balanceOf(stack.pool, account.accountId);
      const wrong = own.url.replace('own-secret-7', 'wrong');
      const res = await scrape({ cost_controls: { force_tier: '1' }, advanced: { use_own_proxy: true, proxy_url: wrong } });
      expect(res.status, show(res)).to.be.within(500, 599);
      expect(res.body.billing.refunded).to.equal(true);
      // The answer blames the proxy, not the target, and never repeats the credentials.
      expect(res.body.message, show(res)).to.match(/^The proxy .* refused the credentials/);
      expect(JSON.stringify(res.body)).not.to.contain('wrong');
      expect(own.refusedAuth).to.be.greaterThan(0);
      expect(own.tunnels).to.deep.equal([]);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('names the proxy, not the target, when the proxy cannot be reached', async () => {
      const port = await closedPort();
      const res = await scrape({ cost_controls: { force_tier: '1' }, advanced: { use_own_proxy: true, proxy_url: `http://u:gone-pw@127.0.0.1:${port}` } });
      expect(res.status, show(res)).to.equal(503);
      expect(res.body.error).to.equal('NETWORK_ERROR');
      expect(res.body.message, show(res)).to.equal(`The proxy http://127.0.0.1:${port} could not be reached (ECONNREFUSED)`);
      expect(res.body.billing.refunded).to.equal(true);
    });

    it('refuses a proxy at a private address with URL_NOT_ALLOWED before charging, without echoing its credentials', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      for (const proxyUrl of ['http://u:hidden-pw@10.0.0.7:3128', 'socks5://u:hidden-pw@127.0.0.2:1080', 'http://u:hidden-pw@localhost:8080']) {
        const res = await scrape({ advanced: { use_own_proxy: true, proxy_url: proxyUrl } });
        expect(res.status, `${proxyUrl}: ${show(res)}`).to.equal(400);
        expect(res.body.error).to.equal('URL_NOT_ALLOWED');
        expect(JSON.stringify(res.body)).not.to.contain('hidden-pw');
      }
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('validates the proxy options', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ use_own_proxy: true }, 'advanced.proxy_url'],
        [{ proxy_url: own.url }, 'advanced.proxy_url'],
        [{ use_own_proxy: true, proxy_url: 'ftp://h:21' }, 'advanced.proxy_url'],
        [{ use_own_proxy: true, proxy_url: own.url, use_proxy: true }, 'advanced.use_own_proxy'],
      ];
      for (const [advanced, field] of cases) {
        const res = await scrape({ advanced });
        expect(res.status, show(res)).to.equal(400);
        expect(JSON.stringify(res.body.details), JSON.stringify(advanced)).to.contain(field);
      }
    });

    it('never shares a cached result between accounts using their own proxies', async () => {
      const other = await createTestAccount(stack, 1_000_000);
      const otherApi = apiClient(stack.baseUrl, other.key);
      const body = { url: `${site.url}/proxy/echo?cache=own`, formats: ['text'], cache: true, cost_controls: { force_tier: '1' }, advanced: { use_own_proxy: true, proxy_url: own.url } };
      const first = await api.post('/api/v1/scrape', body);
      expect(first.status, show(first)).to.equal(200);
      const again = await api.post('/api/v1/scrape', body);
      expect(again.body.cached).to.equal(true);
      const foreign = await otherApi.post('/api/v1/scrape', body);
      expect(foreign.status, show(foreign)).to.equal(200);
      expect(foreign.body.cached).to.equal(false);
    });
  });

  describe('location', () => {
    it('asks the HTTP tiers for the country’s language', async () => {
      for (const tier of ['1', '2']) {
        const res = await scrape({ cost_controls: { force_tier: tier }, location: { country: 'de' }, advanced: { only_main_content: false } });
        expect(res.status, show(res)).to.equal(200);
        expect(res.body.content, `tier ${tier}`).to.contain('header accept-language = de-DE,de;q=0.9');
      }
    });

    it("sets the browser's language, time zone and Accept-Language", async () => {
      for (const tier of ['3', '4']) {
        const res = await scrape({ cost_controls: { force_tier: tier }, location: { country: 'JP', city: 'Osaka' }, advanced: { only_main_content: false } });
        expect(res.status, show(res)).to.equal(200);
        expect(res.body.content, `tier ${tier}`).to.contain('timezone Asia/Tokyo language ja-JP');
        // Stealth (3) sends what a person's Chromium set to Japanese sends; tier 4 the bare locale, as Playwright sets it.
        expect(res.body.content, `tier ${tier}`).to.match(tier === '3' ? /header accept-language = ja-JP,ja;q=0\.9$/m : /header accept-language = ja-JP$/m);
      }
    });

    it('refuses a country code it does not know', async () => {
      for (const country of ['XX', 'usa', '1']) {
        const res = await scrape({ location: { country } });
        expect(res.status, country).to.equal(400);
        expect(res.body.error).to.equal('VALIDATION_ERROR');
      }
    });
  });

  describe('add-ons', () => {
    it('charges a screenshot and a PDF on top of the browser, shown in billing.add_ons', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ formats: ['markdown'], advanced: { render_js: true, screenshot: true, generate_pdf: true } });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.billing.total_credits).to.equal(23);
      expect(res.body.billing.add_ons).to.deep.equal({ screenshot: 1, generate_pdf: 2 });
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 23 * 200);
    });

    it('refunds the add-ons with the rest when the scrape fails', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ url: `${site.url}/status/404`, advanced: { render_js: true, screenshot: true } });
      expect(res.status, show(res)).to.equal(422);
      expect(res.body.billing.refunded).to.equal(true);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('estimates the add-ons into the price', async () => {
      const res = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/proxy/echo`, advanced: { render_js: true, screenshot: true } });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.estimated_credits).to.equal(21);
    });
  });

  describe('the deprecated routes', () => {
    it("sends /scrape/light's headers to the target and refuses hop-by-hop ones", async () => {
      const res = await api.post('/api/v1/scrape/light', { url: `${site.url}/proxy/echo`, headers: { 'X-Harbour-Pass': 'gate-4' } });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.content).to.contain('x-harbour-pass');
      expect(res.body.content).to.contain('gate-4');
      for (const name of ['Connection', 'Host', 'Proxy-Authorization', 'Transfer-Encoding']) {
        const refused = await api.post('/api/v1/scrape/light', { url: `${site.url}/proxy/echo`, headers: { [name]: 'x' } });
        expect(refused.status, name).to.equal(400);
      }
    });

    it('answers the redirect itself with follow_redirects false', async () => {
      const res = await api.post('/api/v1/scrape/light', { url: `${site.url}/redirect/to?url=%2Farticle&status=301`, follow_redirects: false });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.status_code).to.equal(301);
      expect(res.body.headers.location).to.equal('/article');
      const followed = await api.post('/api/v1/scrape/light', { url: `${site.url}/redirect/to?url=%2Farticle&status=301` });
      expect(followed.body.status_code).to.equal(200);
    });

    it("sends /scrape/js headers from the browser to the target's origin only, and refuses follow_redirects false there", async () => {
      const res = await api.post('/api/v1/scrape/js', { url: `${site.url}/proxy/echo`, headers: { 'X-Harbour-Pass': 'gate-9' } });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.content).to.contain('gate-9');
      const thirdParty = await startSiteServer({ routes: PROXY_ROUTES });
      const seen: Array<string | string[] | undefined> = [];
      thirdParty.onRequest((req) => seen.push(req.headers['x-harbour-pass']));
      try {
        const embeds = await api.post('/api/v1/scrape/js', { url: `${site.url}/proxy/embeds?other=${encodeURIComponent(thirdParty.url)}`, headers: { 'X-Harbour-Pass': 'gate-9' } });
        expect(embeds.status, show(embeds)).to.equal(200);
        expect(thirdParty.hits('/proxy/script.js')).to.equal(1);
        expect(seen).to.deep.equal([undefined]);
      } finally {
        await thirdParty.close();
      }
      const refused = await api.post('/api/v1/scrape/js', { url: `${site.url}/proxy/echo`, follow_redirects: false });
      expect(refused.status, show(refused)).to.equal(400);
    });
  });

  describe('with a premium proxy network', () => {
    let premium: ConnectProxy;
    let german: ConnectProxy;
    const ROLES = ['control-plane', 'fetch-t1', 'fetch-t2', 'fetch-t3', 'browser'] as const;

    before(async () => {
      premium = await startConnectProxy({ username: 'pool', password: 'premium-secret' });
      german = await startConnectProxy({ username: 'pool-de', password: 'premium-secret' });
      await restartRoles(stack, ROLES, { TRAWL_PREMIUM_PROXY_URLS: `${premium.url}, de=${german.url}` });
      await waitForWorkers(stack.baseUrl, 60_000, 'browser');
      await warmUp();
    });
    after(async () => {
      await restartRoles(stack, ROLES);
      await premium?.close();
      await german?.close();
      // The suites after this one find the pools as warm as this one found them.
      await waitForWorkers(stack.baseUrl, 60_000, 'browser');
      await warmUp();
    });
    beforeEach(() => {
      premium.reset();
      german.reset();
    });

    for (const tier of ['1', '2', '3', '4']) {
      it(`sends tier ${tier}'s connections through a premium proxy with use_proxy, for 1 credit more`, async () => {
        const before = await balanceOf(stack.pool, account.accountId);
        const res = await scrape({ cost_controls: { force_tier: tier }, advanced: { use_proxy: true } });
        expect(res.status, show(res)).to.equal(200);
        expect([...premium.tunnels, ...german.tunnels]).to.include(target());
        const price = { '1': 200, '2': 300, '3': 2_000, '4': 4_000 }[tier]! + 200;
        expect(res.body.billing.add_ons).to.deep.equal({ use_proxy: 1 });
        expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - price);
      });
    }

    it("uses a proxy of the location's country", async () => {
      const res = await scrape({ cost_controls: { force_tier: '1' }, location: { country: 'DE' }, advanced: { use_proxy: true, only_main_content: false } });
      expect(res.status, show(res)).to.equal(200);
      expect(german.tunnels).to.deep.equal([target()]);
      expect(premium.tunnels).to.deep.equal([]);
      expect(res.body.content).to.contain('header accept-language = de-DE,de;q=0.9');
      const nowhere = await scrape({ location: { country: 'FR' }, advanced: { use_proxy: true } });
      expect(nowhere.status, show(nowhere)).to.equal(400);
      expect(nowhere.body.message).to.contain('no proxy in FR');
    });

    it('plans tier 3.5 between 3 and 4, and runs it through a premium proxy at its own price', async () => {
      const estimate = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/proxy/echo` });
      expect(estimate.body.tier_plan).to.deep.equal(['1', '2', '3', '3.5', '4', '5']);
      expect(estimate.body.available_tiers).to.include('3.5');
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ cost_controls: { force_tier: '3.5' } });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.content).to.contain(ECHO_TEXT);
      expect(res.body.billing.tier_used).to.equal('3.5');
      expect(res.body.billing.total_credits).to.equal(12.5);
      expect([...premium.tunnels, ...german.tunnels]).to.include(target());
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 2_500);
    });

    it('lets no request of a browser under a proxy reach a private address', async () => {
      const page = await scrape({
        url: `${site.url}/tiers/private-subresources?trap=${encodeURIComponent(trap.url)}`,
        wait_until: 'networkidle',
        cost_controls: { force_tier: '4' },
        advanced: { use_proxy: true },
      });
      expect(page.status, show(page)).to.equal(200);
      expect(page.body.content).to.contain(GUARDED_TEXT);
      const redirected = await scrape({ url: `${site.url}/redirect/to?url=${encodeURIComponent(`${trap.url}/admin`)}`, cost_controls: { force_tier: '4' }, advanced: { use_proxy: true } });
      expect(redirected.status, show(redirected)).to.equal(400);
      expect(redirected.body.error).to.equal('URL_NOT_ALLOWED');
      expect(trap.hits()).to.equal(0);
      const trapHost = new URL(trap.url).host;
      expect(premium.tunnels.filter((t) => t === trapHost)).to.deep.equal([]);
      expect(premium.tunnels).to.include(target());
    });
  });
});
