import { expect } from 'chai';
import { redisKeys } from '../../common/redis-keys.js';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, type ApiResponse } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('dispatch entitlement (SPEC 7.4, 8.1 rule 5)', function () {
  this.timeout(90_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => site.close());

  async function openJobs(accountId: string): Promise<number> {
    const res = await stack.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('pending', 'running')", [accountId]);
    return res.rows[0]!.n;
  }

  it('admits a Free account three jobs in flight, refuses the fourth with the 7.4 body, and admits again once they end', async () => {
    const { accountId, key } = await createTestAccount(stack, 1_000_000, { enterprise: false });
    const api = apiClient(stack.baseUrl, key);
    const scrape = () => api.post('/api/v1/scrape', { url: `${site.url}/slow?ms=3000`, sync: false });
    const accepted: ApiResponse[] = [];
    for (let i = 0; i < 3; i++) {
      // Each POST costs two of the Free tier's five tokens a second.
      accepted.push(await scrape());
      await sleep(450);
    }
    expect(accepted.map((r) => r.status)).to.deep.equal([202, 202, 202]);
    expect(accepted.map((r) => r.headers.get('x-dispatch-entitlement-limit'))).to.deep.equal(['15', '15', '15']);
    expect(accepted.map((r) => r.headers.get('x-dispatch-entitlement-remaining'))).to.deep.equal(['14', '13', '12']);
    const reset = Number(accepted[2]!.headers.get('x-dispatch-entitlement-reset'));
    expect(reset).to.be.within(Math.floor(Date.now() / 1000), Math.ceil(Date.now() / 1000) + 13);
    for (const res of accepted) {
      for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-concurrency-limit', 'x-concurrency-current']) {
        expect(res.headers.get(header), header).to.match(/^\d+$/);
      }
    }

    const refused = await scrape();
    expect(refused.status).to.equal(429);
    expect(Object.keys(refused.body).sort()).to.deep.equal(['detail', 'docs_url', 'error', 'message', 'request_id']);
    expect(refused.body.error).to.equal('rate_limit_exceeded');
    expect(refused.body.message).to.be.a('string').and.contain('3');
    expect(refused.body.detail).to.deep.equal({
      scope: 'global_concurrent',
      domain: null,
      limit: 3,
      in_flight: 3,
      requested: 1,
      accepted: 0,
      account_tier: 'free',
      retry_after_seconds: 1,
    });
    expect(refused.body.docs_url).to.equal(`${stack.baseUrl}/api/v1/docs`);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.headers.get('x-dispatch-entitlement-limit')).to.equal('15');
    expect(refused.headers.get('x-dispatch-entitlement-remaining')).to.equal('12');
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('30');
    expect(refused.headers.get('x-concurrency-limit')).to.equal('3');
    expect(await openJobs(accountId)).to.equal(3);

    const until = Date.now() + 30_000;
    while ((await openJobs(accountId)) > 0 && Date.now() < until) await sleep(200);
    expect(await openJobs(accountId)).to.equal(0);
    await sleep(100);
    expect(await stack.redis.zcard(redisKeys(stack.config.natsPrefix).dispatchInFlight(accountId))).to.equal(0);
    const again = await scrape();
    expect(again.status, JSON.stringify(again.body)).to.equal(202);
  });

  it('frees the slot of a job that fails', async () => {
    const { accountId, key } = await createTestAccount(stack, 1_000_000, { enterprise: false });
    const api = apiClient(stack.baseUrl, key);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/status/404`, sync: true });
    expect(res.status).to.be.within(400, 599);
    await sleep(100);
    expect(await openJobs(accountId)).to.equal(0);
    expect(await stack.redis.zcard(redisKeys(stack.config.natsPrefix).dispatchInFlight(accountId))).to.equal(0);
  });
});
