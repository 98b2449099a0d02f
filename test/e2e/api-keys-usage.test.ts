import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const USD = 1_000_000;

describe('API keys: usage from the request logs', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let user: TestUser;
  let key: { id: string; key: string };
  let requestIds: string[];

  const read = (path: string) => apiClient(stack.baseUrl).get(`/api/v1/api-keys/${key.id}${path}`, { Authorization: `Bearer ${user.token}` });

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    user = await createTestUser(stack, { microcents: 600 * USD });
    const created = await apiClient(stack.baseUrl).post('/api/v1/api-keys', { name: 'measured' }, { Authorization: `Bearer ${user.token}` });
    key = created.body;
    // Another key of the account, never counted for this one; its scrape also warms the content pipeline of a fresh stack.
    for (let i = 0; i < 5; i++) {
      if ((await apiClient(stack.baseUrl, user.key).post('/api/v1/scrape', { url: `${site.url}/article` })).status === 200) break;
    }
    const api = apiClient(stack.baseUrl, key.key);
    const answers = [
      await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] }),
      await api.post('/api/v1/scrape', { url: `${site.url}/status/200`, formats: ['markdown'] }),
      await api.post('/api/v1/scrape', { url: `${site.url}/status/404`, formats: ['markdown'] }),
    ];
    expect(answers.map((a) => a.status), JSON.stringify(answers.map((a) => a.body.error))).to.deep.equal([200, 200, 422]);
    // A call the control plane refuses is logged against the key too.
    const refused = await api.get('/api/v1/jobs/3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(refused.status).to.equal(404);
    requestIds = [...answers, refused].map((a) => a.headers.get('x-request-id')!);
    // Wait for the sink to write them all.
    for (let i = 0; i < 120; i++) {
      const usage = await read('/usage');
      if (usage.body.total_requests >= 4) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  after(async () => site.close());

  it('sums requests, successes, failures and spend', async () => {
    const res = await read('/usage');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      api_key_id: key.id,
      api_key_name: 'measured',
      total_requests: 4,
      successful_requests: 2,
      failed_requests: 2,
      total_spend_microcents: 400,
    });
  });

  it('splits requests and spend by tier', async () => {
    const res = await read('/usage/by-tier?days=7');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ api_key_id: key.id, days: 7, tiers: [{ tier: '1', requests: 3, spend_microcents: 400 }] });
  });

  it('counts failures by error code', async () => {
    const res = await read('/usage/errors');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ api_key_id: key.id, days: 30, total_errors: 2 });
    expect(res.body.errors.map((e: { error_code: string; count: number }) => [e.error_code, e.count])).to.deep.equal([
      ['NOT_FOUND', 1],
      ['TARGET_NOT_FOUND', 1],
    ]);
    for (const e of res.body.errors) expect(Date.now() - Date.parse(e.last_seen)).to.be.within(-5_000, 120_000);
  });

  it('pages requests newest first and filters them by status, tier and domain', async () => {
    const all = await read('/usage/requests?page_size=2');
    expect(all.status).to.equal(200);
    expect(all.body).to.include({ api_key_id: key.id, total: 4, page: 1, page_size: 2, total_pages: 2 });
    expect(all.body.items.map((r: { request_id: string }) => r.request_id)).to.deep.equal([requestIds[3], requestIds[2]]);
    expect(all.body.items[0]).to.include({ method: 'GET', status: 404, error_code: 'NOT_FOUND', domain: null, tier: null, spend_microcents: 0 });
    expect(all.body.items[1]).to.include({ method: 'POST', route: 'POST /api/v1/scrape', status: 422, error_code: 'TARGET_NOT_FOUND', domain: '127.0.0.1', tier: '1' });
    const second = await read('/usage/requests?page_size=2&page=2');
    expect(second.body.items.map((r: { request_id: string }) => r.request_id)).to.deep.equal([requestIds[1], requestIds[0]]);
    expect(second.body.items[1]).to.include({ status: 200, spend_microcents: 200, error_code: null });

    expect((await read('/usage/requests?status=failed')).body.total).to.equal(2);
    expect((await read('/usage/requests?status=success')).body.total).to.equal(2);
    expect((await read('/usage/requests?tier=1')).body.total).to.equal(3);
    expect((await read('/usage/requests?tier=4')).body.total).to.equal(0);
    expect((await read('/usage/requests?domain=0.0')).body.total).to.equal(3);
    expect((await read("/usage/requests?domain=example.com'%20OR%201=1%20--")).body.total).to.equal(0);
  });

  it('buckets requests, errors and spend by hour and by day, every bucket of the window included', async () => {
    const hourly = await read('/usage/timeseries?days=1&granularity=hour');
    expect(hourly.status).to.equal(200);
    expect(hourly.body).to.include({ api_key_id: key.id, days: 1, granularity: 'hour' });
    expect(hourly.body.data.length).to.be.within(24, 25);
    const totals = hourly.body.data.reduce(
      (sum: { requests: number; errors: number; spend: number }, b: { requests: number; errors: number; spend_microcents: number }) => ({
        requests: sum.requests + b.requests,
        errors: sum.errors + b.errors,
        spend: sum.spend + b.spend_microcents,
      }),
      { requests: 0, errors: 0, spend: 0 },
    );
    expect(totals).to.deep.equal({ requests: 4, errors: 2, spend: 400 });
    const last = hourly.body.data[hourly.body.data.length - 1];
    expect(last.bucket).to.equal(`${new Date().toISOString().slice(0, 13)}:00:00Z`);
    const daily = await read('/usage/timeseries?days=7');
    expect(daily.body.granularity).to.equal('day');
    expect(daily.body.data).to.have.length(8);
    expect(daily.body.data[7]).to.deep.include({ bucket: `${new Date().toISOString().slice(0, 10)}T00:00:00Z`, requests: 4, errors: 2, spend_microcents: 400 });
  });

  it('refuses out-of-range windows and pages with 400', async () => {
    for (const q of ['/usage?days=0', '/usage?days=366', '/usage?days=abc', '/usage/requests?page_size=101', '/usage/requests?page=0', '/usage/requests?status=ok', '/usage/timeseries?granularity=minute', '/usage?extra=1']) {
      const res = await read(q);
      expect(res.status, q).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
    }
  });
});
