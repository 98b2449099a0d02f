import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { IP_LIMITS } from '../../common/limits.js';
import { apiClient, type ApiResponse } from '../support/api.js';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

const HEALTH_JOBS = '/api/v1/health/jobs';

function expectLimited(res: ApiResponse, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(429);
  expect(res.body.error).to.equal('RATE_LIMIT_EXCEEDED');
  expect(res.body.request_id).to.be.a('string');
  expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
}

describe('per-address limits (SPEC 8.2) and GET /api/v1/health/jobs (SPEC 4.11)', function () {
  this.timeout(90_000);
  let stack: TestStack;
  let key: string;
  // A second gateway that trusts the loopback address as its proxy, so X-Forwarded-For names the client.
  let proxied: ExtraGateway;

  before(async () => {
    stack = await getStack();
    ({ key } = await createTestAccount(stack, 1_000_000));
    proxied = await startExtraGateway(stack, { TRAWL_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(async () => proxied?.stop());

  it('reports stuck jobs, the threshold, the status and the queue depth', async () => {
    const res = await apiClient(stack.baseUrl, key).get(HEALTH_JOBS);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['message', 'queue_depth', 'status', 'stuck_jobs', 'threshold']);
    expect(res.body.threshold).to.equal(5);
    expect(res.body.stuck_jobs).to.be.a('number').and.at.least(0);
    expect(res.body.queue_depth).to.be.a('number').and.at.least(0);
    expect(res.body.status).to.equal(res.body.stuck_jobs >= 5 ? 'degraded' : 'healthy');
    expect(res.headers.get('x-ratelimit-limit')).to.equal('10000');
  });

  it('answers degraded once five jobs run longer than any job may', async () => {
    const { accountId } = await createTestAccount(stack, 0);
    const api = apiClient(stack.baseUrl, key);
    const before = (await api.get(HEALTH_JOBS)).body.stuck_jobs as number;
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await stack.pool.query(
      `INSERT INTO jobs (id, account_id, status, url, mode, formats, sync, request, tier_plan, started_at, deadline_at)
       SELECT id, $2, 'running', 'https://example.com/', 'auto', '{markdown}', false, '{}'::jsonb, '{1}', now() - interval '20 minutes', now() + interval '1 hour'
       FROM unnest($1::uuid[]) AS id`,
      [ids, accountId],
    );
    try {
      const res = await api.get(HEALTH_JOBS);
      expect(res.body).to.include({ stuck_jobs: before + 5, threshold: 5, status: 'degraded' });
      expect(res.body.message).to.contain('stuck');
    } finally {
      await stack.pool.query("UPDATE jobs SET status = 'failed', completed_at = now() WHERE id = ANY($1::uuid[])", [ids]);
    }
  });

  it('takes an API key', async () => {
    const res = await apiClient(stack.baseUrl).get(HEALTH_JOBS);
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
  });

  it(`answers ${IP_LIMITS.healthJobs.limit} requests a minute from one address, then 429 with Retry-After, key or no key`, async () => {
    const api = apiClient(stack.baseUrl, key);
    for (let i = 0; i < IP_LIMITS.healthJobs.limit - 1; i++) expect((await api.get(HEALTH_JOBS)).status).to.equal(200);
    expect((await apiClient(stack.baseUrl).get(HEALTH_JOBS)).status).to.equal(401);
    const over = await api.get(HEALTH_JOBS);
    expectLimited(over, 'the 11th request');
    expect(Number(over.headers.get('retry-after'))).to.be.within(1, 6);
    expect(over.body.details).to.include({ limit: IP_LIMITS.healthJobs.name });
  });

  it('counts one address once across two gateway processes', async () => {
    const gateways = [apiClient(stack.baseUrl, key), apiClient(proxied.baseUrl, key)];
    for (let i = 0; i < IP_LIMITS.healthJobs.limit; i++) expect((await gateways[i % 2]!.get(HEALTH_JOBS)).status).to.equal(200);
    expectLimited(await gateways[0]!.get(HEALTH_JOBS), 'the first gateway');
    expectLimited(await gateways[1]!.get(HEALTH_JOBS), 'the second gateway');
  });

  it('counts by X-Forwarded-For behind a trusted proxy, one client apart from another', async () => {
    const api = apiClient(proxied.baseUrl, key);
    const from = (address: string) => api.get(HEALTH_JOBS, { 'X-Forwarded-For': address });
    for (let i = 0; i < IP_LIMITS.healthJobs.limit; i++) expect((await from('203.0.113.7')).status).to.equal(200);
    expectLimited(await from('203.0.113.7'), 'the forwarded client over its limit');
    expect((await from('203.0.113.8')).status).to.equal(200);
    // The proxy's own address was never counted.
    expect((await api.get(HEALTH_JOBS)).status).to.equal(200);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const api = apiClient(stack.baseUrl, key);
    for (let i = 0; i < IP_LIMITS.healthJobs.limit; i++) expect((await api.get(HEALTH_JOBS, { 'X-Forwarded-For': `198.51.100.${i + 1}` })).status).to.equal(200);
    expectLimited(await api.get(HEALTH_JOBS, { 'X-Forwarded-For': '198.51.100.200' }), 'a new forwarded address from an untrusted peer');
  });

  it('refuses a login over the limit before reading its body', async () => {
    const api = apiClient(stack.baseUrl);
    for (let i = 0; i < IP_LIMITS.login.limit; i++) {
      const res = await api.post('/api/v1/auth/login', { email: `nobody-${i}@example.test`, password: 'not the password' });
      expect(res.status).to.equal(401);
    }
    expectLimited(await api.post('/api/v1/auth/login', '{"email": not json'), 'a malformed body over the limit');
  });

  it('counts check-email per e-mail address too, whatever its case', async () => {
    const api = apiClient(proxied.baseUrl);
    const email = `limits-${randomUUID()}@example.test`;
    const check = (address: string, i: number) => api.post('/api/v1/auth/check-email', { email: address }, { 'X-Forwarded-For': `192.0.2.${i + 1}` });
    for (let i = 0; i < IP_LIMITS.checkEmailPerEmail.limit; i++) {
      const res = await check(i % 2 ? email.toUpperCase() : email, i);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const over = await check(email, 50);
    expectLimited(over, 'the same address from a new client');
    expect(over.body.message).to.contain('e-mail');
    expect((await check(`other-${email}`, 51)).status).to.equal(200);
    // Per client address: five a minute.
    for (let i = 0; i < IP_LIMITS.checkEmailPerIp.limit; i++) expect((await check(`${i}-${email}`, 100)).status).to.equal(200);
    expectLimited(await check(`x-${email}`, 100), 'a sixth check from one address');
  });
});
