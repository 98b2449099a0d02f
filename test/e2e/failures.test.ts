import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf, pollJob } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { closedPort } from '../support/closed-port.js';

describe('target failures are classified, answered and refunded', function () {
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

  const cases: Array<[string, () => string, Record<string, unknown>, number, string]> = [
    ['a target 404', () => `${site.url}/status/404`, {}, 422, 'TARGET_NOT_FOUND'],
    ['a target 410', () => `${site.url}/status/410`, {}, 422, 'TARGET_NOT_FOUND'],
    ['a page that answers 200 but says it was not found (a soft 404)', () => `${site.url}/soft-404`, {}, 422, 'TARGET_NOT_FOUND'],
    ['a target 500', () => `${site.url}/status/500`, {}, 503, 'TARGET_UNAVAILABLE'],
    ['a login wall (401)', () => `${site.url}/login-required`, {}, 401, 'REQUIRES_AUTH'],
    ['a bot challenge page', () => `${site.url}/challenge/cloudflare`, {}, 403, 'CHALLENGE_DETECTED'],
    ['a plain 403', () => `${site.url}/status/403`, {}, 403, 'BLOCKED_BY_ANTIBOT'],
    ['a page slower than the timeout', () => `${site.url}/slow?ms=10000`, { timeout: 2 }, 504, 'TIMEOUT'],
    ['a connection dropped mid-response', () => `${site.url}/reset`, {}, 503, 'NETWORK_ERROR'],
    ['a name that does not resolve', () => 'http://nonexistent-host.invalid/', {}, 503, 'NETWORK_ERROR'],
    ['a page over 10 MB (streamed)', () => `${site.url}/huge?mb=11`, {}, 413, 'CONTENT_TOO_LARGE'],
    ['a page over 10 MB (declared)', () => `${site.url}/huge-declared`, {}, 413, 'CONTENT_TOO_LARGE'],
    ['an image in auto mode', () => `${site.url}/image.png`, {}, 415, 'UNSUPPORTED_CONTENT_TYPE'],
  ];
  for (const [what, url, extra, status, code] of cases) {
    it(`answers ${what} with ${status} ${code} and refunds it`, async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      // Escalating failures run on through the browser tier; the request waits for the end instead of a 202.
      const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', { url: url(), formats: ['markdown'], sync_policy: 'wait_until_deadline', ...extra });
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.error).to.equal(code);
      expect(res.body.request_id).to.be.a('string');
      expect(res.body.billing).to.include({ refunded: true, total_credits: 0, reason: code });
      expect(res.body.job_id).to.be.a('string');
      expect(res.headers.get('x-service-credits')).to.equal('0');
      // Every 503 says when to come back.
      if (status === 503) expect(res.headers.get('retry-after'), 'Retry-After').to.match(/^\d+$/);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
      const job = await apiClient(stack.baseUrl, account.key).get(`/api/v1/jobs/${res.body.job_id}`);
      expect(job.body.status).to.equal('failed');
      expect(job.body.error.code).to.equal(code);
    });
  }

  it('answers a refused connection with 503 NETWORK_ERROR', async () => {
    const port = await closedPort();
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', { url: `http://127.0.0.1:${port}/` });
    expect(res.status).to.equal(503);
    expect(res.body.error).to.equal('NETWORK_ERROR');
  });

  it('reports the failure of an async job on the job record, refunded', async () => {
    const api = apiClient(stack.baseUrl, account.key);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/status/404`, sync: false });
    expect(res.status).to.equal(202);
    const job = await pollJob(api, res.body.poll_url, 20_000);
    expect(job.status).to.equal('failed');
    expect(job.error.code).to.equal('TARGET_NOT_FOUND');
    expect(job.error.details.target_status_code).to.equal(404);
    expect(job.billing).to.include({ refunded: true, total_credits: 0 });
  });
});
