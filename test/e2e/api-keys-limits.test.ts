import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';

const USD = 1_000_000;

describe('API keys: per-key limits and test keys', function () {
  this.timeout(90_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => site.close());

  async function newKey(token: string, environment: 'live' | 'test', name = 'limited') {
    const res = await apiClient(stack.baseUrl).post('/api/v1/api-keys', { name, environment }, { Authorization: `Bearer ${token}` });
    expect(res.status).to.equal(201);
    return res.body as { id: string; key: string };
  }

  const putLimits = (token: string, keyId: string, limits: Record<string, unknown>) =>
    apiClient(stack.baseUrl).call('PUT', `/api/v1/api-keys/${keyId}/limits`, limits, { Authorization: `Bearer ${token}` });

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once a key has made request_limit requests in its period', async () => {
    const user = await createTestUser(stack, { microcents: 600 * USD });
    const key = await newKey(user.token, 'live');
    expect((await putLimits(user.token, key.id, { request_limit: 3, reset_period: 'daily' })).status).to.equal(200);
    const api = apiClient(stack.baseUrl, key.key);
    for (let i = 0; i < 3; i++) expect((await api.get('/api/v1/api-keys')).status).to.equal(200);
    const refused = await api.get('/api/v1/api-keys');
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.equal('RATE_LIMIT_EXCEEDED');
    expect(refused.body.details).to.include({ limit: 'api_key_request_limit', request_limit: 3 });
    const resetAt = Date.parse(refused.body.details.reset_at);
    expect(new Date(resetAt).toISOString().slice(11)).to.equal('00:00:00.000Z');
    expect(Number(refused.headers.get('retry-after'))).to.be.closeTo((resetAt - Date.now()) / 1000, 5);
    // The account's other keys and its sessions are not limited by this key's limit.
    expect((await apiClient(stack.baseUrl, user.key).get('/api/v1/api-keys')).status).to.equal(200);
    const limits = await apiClient(stack.baseUrl).get(`/api/v1/api-keys/${key.id}/limits`, { Authorization: `Bearer ${user.token}` });
    expect(limits.body.limits.request_count).to.equal(3);
    // Raising the limit takes effect at once.
    expect((await putLimits(user.token, key.id, { request_limit: 10, reset_period: 'daily' })).status).to.equal(200);
    expect((await api.get('/api/v1/api-keys')).status).to.equal(200);
  });

  it('lets no more concurrent scrapes through than the key budget covers, refusing the rest with 402 KEY_BUDGET_EXCEEDED', async () => {
    const user = await createTestUser(stack, { microcents: 600 * USD });
    const key = await newKey(user.token, 'live');
    // Five tier-1 scrapes (200 microcents each, max_tier 1 keeping each reservation to that).
    expect((await putLimits(user.token, key.id, { budget_limit_microcents: 1_000 })).status).to.equal(200);
    const api = apiClient(stack.baseUrl, key.key);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post('/api/v1/scrape', { url: `${site.url}/article?n=${i}`, formats: ['markdown'], cost_controls: { max_tier: '1' } })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(5);
    const refused = answers.filter((a) => a.status === 402);
    expect(refused).to.have.length(7);
    for (const r of refused) {
      expect(r.body.error).to.equal('KEY_BUDGET_EXCEEDED');
      expect(r.body.details).to.include({ budget_limit_microcents: 1_000, required_microcents: 200, reset_period: 'monthly' });
    }
    const limits = await apiClient(stack.baseUrl).get(`/api/v1/api-keys/${key.id}/limits`, { Authorization: `Bearer ${user.token}` });
    expect(limits.body.limits.spent_microcents).to.equal(1_000);
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(600 * USD - 1_000);
    // The account's other key still scrapes.
    expect((await apiClient(stack.baseUrl, user.key).post('/api/v1/scrape', { url: `${site.url}/article` })).status).to.equal(200);
  });

  it('runs test-key scrapes free of charge, even on an empty balance', async () => {
    const user = await createTestUser(stack, { microcents: 0 });
    const key = await newKey(user.token, 'test', 'sandbox');
    const res = await apiClient(stack.baseUrl, key.key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.billing.total_credits).to.equal(0);
    expect(res.headers.get('x-service-credits')).to.equal('0');
    const job = await stack.pool.query('SELECT api_key_id, reserved_microcents, charged_microcents FROM jobs WHERE id = $1', [res.body.job_id]);
    expect(job.rows[0]).to.deep.equal({ api_key_id: key.id, reserved_microcents: '0', charged_microcents: '0' });
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(0);
    // The same request with a live key of the empty account is refused.
    const live = await apiClient(stack.baseUrl, user.key).post('/api/v1/scrape', { url: `${site.url}/article` });
    expect(live.status).to.equal(402);
  });

  it("runs a test key at the Free tier's rates whatever the account's balance", async () => {
    const user = await createTestUser(stack, { microcents: 600 * USD });
    const test = await newKey(user.token, 'test', 'sandbox');
    const viaTest = await apiClient(stack.baseUrl, test.key).get('/api/v1/api-keys');
    const viaLive = await apiClient(stack.baseUrl, user.key).get('/api/v1/api-keys');
    expect(viaTest.headers.get('x-ratelimit-limit')).to.equal('30');
    expect(viaLive.headers.get('x-ratelimit-limit')).to.equal('500');
  });

  it("refuses a test key's requests past its daily allowance with 429 until the next UTC day", async () => {
    const user = await createTestUser(stack, { microcents: 0 });
    const key = await newKey(user.token, 'test', 'sandbox');
    const api = apiClient(stack.baseUrl, key.key);
    expect((await api.get('/api/v1/api-keys')).status).to.equal(200);
    // Use the rest of today's allowance at once.
    const day = (await stack.pool.query<{ start: Date }>("SELECT api_key_period_start('daily', now()) AS start")).rows[0]!.start;
    const counter = `${stack.config.natsPrefix}api-key-requests:${key.id}:test-day:${day.toISOString()}`;
    expect(await stack.redis.get(counter)).to.equal('1');
    await stack.redis.set(counter, String(stack.config.testKeyDailyRequests), 'KEEPTTL');
    const refused = await api.get('/api/v1/api-keys');
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.equal('RATE_LIMIT_EXCEEDED');
    expect(refused.body.details).to.include({ limit: 'test_key_daily', request_limit: stack.config.testKeyDailyRequests });
    // Live keys of the same account are not held by it.
    expect((await apiClient(stack.baseUrl, user.key).get('/api/v1/api-keys')).status).to.equal(200);
  });
});
