import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('POST /api/v1/scrape/estimate and the deprecated per-mode routes', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let account: { accountId: string; key: string };

  before(async () => {
    stack = await getStack();
    site = await startSiteServer({
      routes: [
        {
          path: '/dated-article',
          handle: ({ res }) => {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            res.end(
              '<!DOCTYPE html><html lang="en"><head><title>Quay lights</title><meta name="author" content="Maren Holt">' +
                '<meta property="article:published_time" content="2024-03-14T08:00:00Z"></head>' +
                '<body><article><h1>Quay lights</h1><p>The harbour board switched the quay lights to tidal power this spring, after a winter of trials along the northern wall.</p></article></body></html>',
            );
          },
        },
      ],
    });
    account = await createTestAccount(stack, 100_000);
  });
  after(async () => site.close());

  const post = (path: string, body: unknown) => apiClient(stack.baseUrl, account.key).post(path, body);

  describe('estimate', () => {
    it('prices the deployed plan without fetching or charging anything', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const hits = site.hits('/article');
      const res = await post('/api/v1/scrape/estimate', { url: `${site.url}/article` });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({
        estimated_credits: 1,
        // Captcha solving ends the plan: the test stack has a solver.
        max_possible_credits: 100,
        estimated_tier: '1',
        tier_plan: ['1', '2', '3', '4', '5'],
        runnable: true,
        version: 'v1',
      });
      expect(res.body.available_tiers).to.deep.equal(['1', '2', '3', '4', '5']);
      expect(site.hits('/article')).to.equal(hits);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });

    it('prices a browser scrape at the browser tier, with captcha solving after it', async () => {
      const res = await post('/api/v1/scrape/estimate', { url: 'https://example.com/', advanced: { render_js: true } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ estimated_credits: 20, max_possible_credits: 100, tier_plan: ['4', '5'], runnable: true });
    });

    it('prices a premium-proxy scrape this deployment cannot run, saying it is not runnable', async () => {
      const res = await post('/api/v1/scrape/estimate', { url: 'https://example.com/', cost_controls: { force_tier: '3.5' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ estimated_credits: 12.5, max_possible_credits: 12.5, tier_plan: ['3.5'], runnable: false });
    });

    it('refuses what a scrape would refuse', async () => {
      const bad = await post('/api/v1/scrape/estimate', { url: 'ftp://example.com/' });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.equal('VALIDATION_ERROR');
      const capped = await post('/api/v1/scrape/estimate', { url: 'https://example.com/', cost_controls: { max_credits: 0.1 } });
      expect(capped.status).to.equal(400);
      expect(capped.body.error).to.equal('EXCEEDS_COST_LIMIT');
      const anonymous = await apiClient(stack.baseUrl).post('/api/v1/scrape/estimate', { url: 'https://example.com/' });
      expect(anonymous.status).to.equal(401);
    });
  });

  describe('deprecated routes', () => {
    const expectDeprecation = (res: { headers: Headers; body: any }, path: string) => {
      expect(res.headers.get('deprecation')).to.equal('true');
      expect(new Date(res.headers.get('sunset')!).getTime()).to.be.greaterThan(Date.now() + 90 * 86_400_000);
      expect(res.headers.get('link')).to.match(/rel="sunset"/);
      expect(res.body.warnings).to.be.an('array').with.length(1);
      expect(res.body.warnings[0]).to.include({ code: 'DEPRECATED_ENDPOINT' });
      expect(res.body.warnings[0].message).to.contain(path);
    };

    it('runs /scrape/light as an html-mode scrape, billed like one', async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await post('/api/v1/scrape/light', { url: `${site.url}/article` });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
      expect(res.body.content).to.be.a('string').and.match(/^#\s/m);
      expect(res.body.billing.total_credits).to.equal(1);
      expectDeprecation(res, '/api/v1/scrape/light');
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 200);
      // SPEC 2.3: published_at and author appear in the deprecated routes' result, null when the page gives none.
      expect(res.body).to.include({ published_at: null, author: null });
      const dated = await post('/api/v1/scrape/light', { url: `${site.url}/dated-article` });
      expect(dated.status, JSON.stringify(dated.body).slice(0, 300)).to.equal(200);
      expect(dated.body).to.include({ published_at: '2024-03-14T08:00:00Z', author: 'Maren Holt' });
      const unified = await post('/api/v1/scrape', { url: `${site.url}/dated-article`, formats: ['markdown'] });
      expect(unified.body).to.not.have.property('published_at');
    });

    it('runs /scrape/js on the browser with its wait_for, waiting for the result as the old route did', async () => {
      const res = await post('/api/v1/scrape/js', { url: `${site.url}/article`, wait_for: 'h1', wait_until: 'load' });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
      expect(res.body.content).to.be.a('string').and.match(/^#\s/m);
      expect(res.body.billing.tier_used).to.equal('4');
      expectDeprecation(res, '/api/v1/scrape/js');
    });

    // /scrape/pdf and /scrape/ocr run on the document pool: test/e2e/documents.test.ts.

    it('validates the old field set, with the deprecation marks on the error too', async () => {
      const res = await post('/api/v1/scrape/pdf', { url: 'https://example.com/doc.pdf', format: 'docx' });
      expect(res.status).to.equal(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('format');
      expectDeprecation(res, '/api/v1/scrape/pdf');
    });

    it('validates the old fetch knobs: hop-by-hop headers are refused, and js cannot keep redirects', async () => {
      const headers = await post('/api/v1/scrape/light', { url: 'https://example.com/', headers: { Connection: 'close' } });
      expect(headers.status).to.equal(400);
      expect(headers.body.details.fields.map((f: { field: string }) => f.field).join(' ')).to.contain('headers');
      const redirects = await post('/api/v1/scrape/js', { url: 'https://example.com/', follow_redirects: false });
      expect(redirects.status).to.equal(400);
      expect(redirects.body.details.fields.map((f: { field: string }) => f.field)).to.include('follow_redirects');
      const selector = await post('/api/v1/scrape/js', { url: 'https://example.com/', wait_for: 'h1[' });
      expect(selector.status).to.equal(400);
      expect(selector.body.details.fields.map((f: { field: string }) => f.field)).to.include('wait_for');
    });

    it('lists the deprecated routes as deprecated in the OpenAPI document', async () => {
      const doc = (await apiClient(stack.baseUrl).get('/api/v1/openapi.json')).body;
      for (const name of ['js', 'light', 'ocr', 'pdf']) expect(doc.paths[`/api/v1/scrape/${name}`].post.deprecated).to.equal(true);
      expect(doc.paths['/api/v1/scrape/estimate'].post.operationId).to.equal('estimateScrape');
    });
  });
});
