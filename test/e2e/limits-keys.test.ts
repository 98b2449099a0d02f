import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { applyLedgerEntry } from '../../control-plane/billing/ledger.js';
import { apiClient, type ApiResponse } from '../support/api.js';
import { payIn } from '../support/checkout.js';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';
import { eventually } from '../support/webhooks.js';

const USD = 1_000_000;
const missingJob = () => `/api/v1/jobs/${randomUUID()}`;

function limitHeaders(res: ApiResponse) {
  const n = (name: string) => (res.headers.get(name) === null ? null : Number(res.headers.get(name)));
  return {
    limit: n('x-ratelimit-limit'),
    remaining: n('x-ratelimit-remaining'),
    reset: n('x-ratelimit-reset'),
    concurrencyLimit: n('x-concurrency-limit'),
    concurrencyCurrent: n('x-concurrency-current'),
  };
}

describe('rate limits per API key by balance tier (SPEC 8.1, 8.3)', function () {
  this.timeout(60_000);
  let stack: TestStack;

  before(async () => {
    stack = await getStack();
  });

  it('answers every API-key call with the limit headers, on success and on failure, writes counting twice', async () => {
    const { key } = await createTestAccount(stack, 0, { enterprise: false });
    const api = apiClient(stack.baseUrl, key);
    const estimate = await api.post('/api/v1/scrape/estimate', { url: 'https://example.com/' });
    expect(estimate.status).to.equal(200);
    const now = Date.now() / 1000;
    const first = limitHeaders(estimate);
    expect(first).to.include({ limit: 30, remaining: 28, concurrencyLimit: 3, concurrencyCurrent: 1 });
    expect(first.reset).to.be.within(Math.floor(now), Math.ceil(now) + 5);
    expect(estimate.headers.get('retry-after')).to.equal(null);

    const missing = await api.get(missingJob());
    expect(missing.status).to.equal(404);
    expect(limitHeaders(missing)).to.include({ limit: 30, remaining: 27, concurrencyLimit: 3, concurrencyCurrent: 1 });
  });

  it('refuses a burst over the per-second limit with 429 RATE_LIMIT_EXCEEDED, Retry-After and the limit headers', async () => {
    const { key } = await createTestAccount(stack, 0, { enterprise: false });
    const api = apiClient(stack.baseUrl, key);
    // Waves of three calls at once (the Free tier's concurrency) spend the burst of 5 faster than it refills at
    // 5 a second, however long each call takes on this machine, without meeting the concurrency limit.
    const answers: ApiResponse[] = [];
    const started = Date.now();
    for (let wave = 0; wave < 12 && !answers.some((r) => r.status === 429); wave++) {
      answers.push(...(await Promise.all([api.get(missingJob()), api.get(missingJob()), api.get(missingJob())])));
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    const admitted = answers.filter((r) => r.status === 404).length;
    const refused = answers.find((r) => r.status === 429);
    expect(answers.slice(0, 3).map((r) => r.status)).to.deep.equal([404, 404, 404]);
    // GCRA lets through at most the burst plus what refilled meanwhile.
    expect(admitted).to.be.at.least(5).and.at.most(5 + Math.ceil(5 * elapsedSeconds));
    expect(refused, 'a refused request').to.not.equal(undefined);
    expect(refused!.body).to.include({ error: 'RATE_LIMIT_EXCEEDED' });
    expect(refused!.body.request_id).to.be.a('string');
    expect(refused!.body.details).to.include({ limit: 'burst_per_second', account_tier: 'free', retry_after_seconds: 1 });
    expect(refused!.headers.get('retry-after')).to.equal('1');
    expect(limitHeaders(refused!)).to.include({ limit: 30, concurrencyLimit: 3 });
  });

  it('lifts the tier on the very next request after a payment is deposited', async () => {
    const user = await createTestUser(stack, { microcents: 0 });
    const api = apiClient(stack.baseUrl, user.key);
    expect(limitHeaders(await api.get(missingJob()))).to.include({ limit: 30, concurrencyLimit: 3 });
    await payIn(stack, user, 60);
    expect(limitHeaders(await api.get(missingJob()))).to.include({ limit: 100, concurrencyLimit: 15 });
    await payIn(stack, user, 500);
    expect(limitHeaders(await api.get(missingJob()))).to.include({ limit: 500, concurrencyLimit: 50 });
  });

  it('follows a deposit made outside the API (the admin command) as soon as it is announced', async () => {
    const { accountId, key } = await createTestAccount(stack, 0, { enterprise: false });
    const api = apiClient(stack.baseUrl, key);
    expect(limitHeaders(await api.get(missingJob()))).to.include({ limit: 30, concurrencyLimit: 3 });
    await applyLedgerEntry(stack.pool, { accountId, kind: 'deposit', amountMicrocents: 60 * USD, reference: `payment:limits-${randomUUID()}` });
    const lifted = await eventually(async () => {
      const headers = limitHeaders(await api.get(missingJob()));
      return headers.limit === 100 ? headers : undefined;
    }, 5_000, 'the Growth tier');
    expect(lifted).to.include({ concurrencyLimit: 15 });
  });

  it('gives an enterprise account the enterprise limits', async () => {
    const { key } = await createTestAccount(stack, 0, { enterprise: true });
    expect(limitHeaders(await apiClient(stack.baseUrl, key).get(missingJob()))).to.include({ limit: 10_000, concurrencyLimit: 500 });
  });

  it('does not count dashboard session calls: only API keys are limited', async () => {
    const user = await createTestUser(stack);
    const bySession = await apiClient(stack.baseUrl).get('/api/v1/auth/me', { Authorization: `Bearer ${user.token}` });
    expect(bySession.status).to.equal(200);
    expect(limitHeaders(bySession)).to.deep.equal({ limit: null, remaining: null, reset: null, concurrencyLimit: null, concurrencyCurrent: null });
    const byKey = await apiClient(stack.baseUrl, user.key).get('/api/v1/auth/me');
    expect(byKey.status).to.equal(200);
    expect(limitHeaders(byKey)).to.include({ limit: 30, remaining: 29 });
  });

  it('documents the limit headers on every API-key route, and 429 with Retry-After', async () => {
    const doc = (await apiClient(stack.baseUrl).get('/api/v1/openapi.json')).body;
    const jobs = doc.paths['/api/v1/jobs/{job_id}'].get.responses;
    for (const status of ['200', '404', '429']) {
      expect(jobs[status].headers, status).to.include.keys('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Concurrency-Limit', 'X-Concurrency-Current');
    }
    expect(jobs['429'].headers).to.include.keys('Retry-After');
    expect(jobs['429'].description).to.contain('RATE_LIMIT_EXCEEDED');
    const scrape = doc.paths['/api/v1/scrape'].post.responses;
    for (const status of ['200', '202']) {
      expect(scrape[status].headers, status).to.include.keys('X-Dispatch-Entitlement-Limit', 'X-Dispatch-Entitlement-Remaining', 'X-Dispatch-Entitlement-Reset');
    }
    expect(scrape['429'].description).to.contain('rate_limit_exceeded');
    expect(doc.paths['/api/v1/health/live'].get.responses['200'].headers).to.equal(undefined);
  });

  describe('with two gateway processes', () => {
    let second: ExtraGateway;
    before(async () => {
      second = await startExtraGateway(stack);
    });
    after(async () => second?.stop());

    it('counts one key once, whichever gateway a request comes through', async () => {
      const { key } = await createTestAccount(stack, 0, { enterprise: false });
      const gateways = [apiClient(stack.baseUrl, key), apiClient(second.baseUrl, key)];
      const remaining: Array<number | null> = [];
      for (let i = 0; i < 4; i++) remaining.push(limitHeaders(await gateways[i % 2]!.get(missingJob())).remaining);
      expect(remaining).to.deep.equal([29, 28, 27, 26]);
    });
  });
});
