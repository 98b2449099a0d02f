import { expect } from 'chai';
import { createClickHouse } from '../../common/connections.js';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('request logs in ClickHouse', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => site.close());

  async function rowsFor(requestId: string) {
    const ch = createClickHouse(stack.config);
    try {
      for (let i = 0; i < 60; i++) {
        // ClickHouse 18.16 has no query parameters; the id is checked to be a plain token instead.
        expect(requestId).to.match(/^[A-Za-z0-9_-]+$/);
        const result = await ch.query({ query: `SELECT * FROM request_logs WHERE request_id = '${requestId}'`, format: 'JSONEachRow' });
        const rows = (await result.json()) as Array<Record<string, unknown>>;
        if (rows.length > 0) return rows;
        await new Promise((r) => setTimeout(r, 250));
      }
      return [];
    } finally {
      await ch.close();
    }
  }

  it('writes one row per scrape with the account, job, domain, status and credits', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status).to.equal(200);
    const rows = await rowsFor(res.headers.get('x-request-id')!);
    expect(rows).to.have.length(1);
    const row = rows[0]!;
    expect(row).to.include({
      account_id: accountId,
      method: 'POST',
      route: 'POST /api/v1/scrape',
      status: 200,
      job_id: res.body.job_id,
      target_domain: '127.0.0.1',
      tier: '1',
      error_code: '',
      source: 'api',
    });
    expect(Number(row['credits_microcents'])).to.equal(200);
    expect(Number(row['duration_ms'])).to.be.at.least(0);
  });

  it('logs failed requests with their error code', async () => {
    const res = await apiClient(stack.baseUrl, 'sk_test_badbadbadbadbadbadbadbadbadbadba').get('/api/v1/jobs/3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(res.status).to.equal(401);
    const rows = await rowsFor(res.body.request_id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ status: 401, error_code: 'INVALID_API_KEY', account_id: '' });
  });
});
