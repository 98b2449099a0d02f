import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf, pollJob } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('POST /api/v1/scrape (tier 1, end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let account: { accountId: string; key: string };

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    account = await createTestAccount(stack, 1_000_000);
  });
  after(async () => site.close());

  it('answers a sync scrape with the page as markdown, billed one credit', async () => {
    const api = apiClient(stack.baseUrl, account.key);
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.content).to.be.a('string');
    expect(res.body.content).to.match(/^#\s/m);
    expect(res.body.status_code).to.equal(200);
    expect(res.body.title).to.be.a('string').and.not.empty;
    expect(res.body.version).to.equal('v1');
    expect(res.body.billing).to.include({ total_credits: 1, tier_used: '1' });
    expect(res.body.billing.escalations).to.deep.equal([
      { tier: '1', result: 'success', credits: 1, duration_ms: res.body.billing.escalations[0].duration_ms },
    ]);
    expect(res.headers.get('x-service-credits')).to.equal('1');
    expect(res.headers.get('x-request-id')).to.match(/^req_/);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 200);
  });

  it('returns an object keyed by format for the default formats', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', { url: `${site.url}/article` });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.content).to.be.an('object').that.has.all.keys('markdown', 'json');
    expect(res.body.content.markdown).to.be.a('string').and.not.empty;
    expect(res.body.headers).to.be.an('object');
    expect(res.body.size_bytes).to.be.greaterThan(0);
  });

  it('adds Markdown to formats with advanced.markdown true and takes it out with false', async () => {
    const api = apiClient(stack.baseUrl, account.key);
    const added = await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['text'], advanced: { markdown: true } });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    expect(added.body.content).to.have.all.keys('text', 'markdown');
    expect(added.body.content.markdown).to.match(/^#/m);
    const removed = await api.post('/api/v1/scrape', { url: `${site.url}/article`, advanced: { markdown: false } });
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    expect(removed.body.content).to.have.all.keys('json');
  });

  it('leaves a consent banner out of a whole page fetched over HTTP unless remove_cookie_banners is false', async () => {
    const bannered = await startSiteServer({
      routes: [
        {
          path: '/bannered',
          handle: ({ res }) => {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            res.end(
              '<!DOCTYPE html><html><head><title>Quay</title></head><body><p>The quay lights switched to tidal power this spring.</p>' +
                '<div id="cookie-law-info-bar"><span>This site uses cookies to remember your visit.</span><a href="#">Accept</a></div></body></html>',
            );
          },
        },
      ],
    });
    try {
      const api = apiClient(stack.baseUrl, account.key);
      const body = { url: `${bannered.url}/bannered`, formats: ['markdown'], advanced: { only_main_content: false } };
      const removed = await api.post('/api/v1/scrape', body);
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
      expect(removed.body.billing.tier_used).to.equal('1');
      expect(removed.body.content).to.contain('tidal power').and.not.contain('uses cookies');
      const kept = await api.post('/api/v1/scrape', { ...body, advanced: { only_main_content: false, remove_cookie_banners: false } });
      expect(kept.body.content).to.contain('tidal power').and.contain('uses cookies');
    } finally {
      await bannered.close();
    }
  });

  it('returns text and html formats side by side', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/article`,
      formats: ['text', 'html'],
      include_raw_html: true,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.content.text).to.be.a('string').and.not.match(/<\w+/);
    expect(res.body.content.html).to.match(/<\w+/);
    expect(res.body.raw_html).to.match(/<html/i);
  });

  it('parses a JSON API body into content.json with extraction_method raw_json_api', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/api/json`,
      formats: ['json', 'html'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.extraction_method).to.equal('raw_json_api');
    expect(res.body.content.json).to.be.an('object');
    expect(res.body.content.html).to.match(/^<pre><code/);
  });

  it('decodes a page served in Shift_JIS', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/charset/shift_jis`,
      formats: ['text'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.content).to.match(/[\u3040-\u30ff\u4e00-\u9faf]/);
  });

  it('sends POST bodies with the given content type', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/post-echo`,
      method: 'POST',
      body: '{"query":"{ items { id } }"}',
      content_type: 'application/json',
      formats: ['json'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.content.json).to.deep.include({ method: 'POST' });
    expect(JSON.stringify(res.body.content.json)).to.contain('items');
  });

  it('sends a request body near the 1 MB limit intact (it travels to the worker outside the task message)', async () => {
    const payload = JSON.stringify({ blob: 'x'.repeat(1_000_000) });
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/post-echo`,
      method: 'POST',
      body: payload,
      content_type: 'application/json',
      formats: ['json'],
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.content.json.body.length).to.equal(payload.length);
    expect(res.body.content.json.body).to.equal(payload);
    // It waited in Redis for the worker (the job names where) and is dropped once the job has ended.
    const { rows } = await stack.pool.query<{ input_key: string | null }>('SELECT input_key FROM jobs WHERE id = $1', [res.body.job_id]);
    expect(rows[0]!.input_key).to.match(/scrape-body:/);
    let left = 1;
    for (let i = 0; i < 100 && left > 0; i++) {
      left = await stack.redis.exists(rows[0]!.input_key!);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(left, 'the parked body outlived its job').to.equal(0);
  });

  it('follows a redirect chain and reports the final URL', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
      url: `${site.url}/redirect/chain?n=3`,
      formats: ['markdown'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.final_url).to.equal(`${site.url}/article`);
  });

  describe('async mode', () => {
    it('answers 202 with a poll URL, and polling ends in succeeded with the result', async () => {
      const api = apiClient(stack.baseUrl, account.key);
      const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, sync: false, formats: ['markdown'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.body.job_id).to.match(/^[0-9a-f-]{36}$/);
      expect(res.body.poll_url).to.equal(`/api/v1/jobs/${res.body.job_id}`);

      const job = await pollJob(api, res.body.poll_url, 20_000);
      expect(job.status).to.equal('succeeded');
      expect(job.job_id).to.equal(res.body.job_id);
      expect(job.result.content).to.be.a('string').and.match(/^#\s/m);
      expect(job.billing.total_credits).to.equal(1);
      expect(job.started_at).to.be.a('string');
      expect(job.completed_at).to.be.a('string');
      expect(job.error).to.equal(null);
    });

    it('answers 410 RESULT_UNAVAILABLE for a succeeded job whose stored result is gone', async () => {
      const api = apiClient(stack.baseUrl, account.key);
      const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, sync: false, formats: ['markdown'] });
      const job = await pollJob(api, res.body.poll_url, 20_000);
      expect(job.status).to.equal('succeeded');
      // Read again: the same answer, rendered once in the gateway (job-bodies.ts) and reused.
      const again = await api.get(res.body.poll_url);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(job);
      const stored = await stack.redis.keys(`*result:${res.body.job_id}:*`);
      expect(stored).to.have.length(1);
      await stack.redis.del(stored[0]!);
      const gone = await api.get(res.body.poll_url);
      expect(gone.status).to.equal(410);
      expect(gone.body.error).to.equal('RESULT_UNAVAILABLE');
      expect(gone.body.details).to.include({ job_id: res.body.job_id, completed_at: job.completed_at, kept_hours: 24 });
    });

    it("does not show one account's job to another", async () => {
      const api = apiClient(stack.baseUrl, account.key);
      const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, sync: false });
      // Ended and read by its owner first, so that the gateway keeps its body.
      expect((await pollJob(api, res.body.poll_url, 20_000)).status).to.equal('succeeded');
      const other = await createTestAccount(stack, 1_000);
      const peek = await apiClient(stack.baseUrl, other.key).get(res.body.poll_url);
      expect(peek.status).to.equal(404);
      expect(peek.body.error).to.equal('NOT_FOUND');
    });
  });
});
