import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

async function ledger(stack: TestStack, jobId: string) {
  const rows = await stack.pool.query<{ kind: string; amount_microcents: string }>(
    'SELECT kind, amount_microcents FROM ledger_entries WHERE reference = $1 ORDER BY id',
    [`job:${jobId}`],
  );
  return rows.rows.map((r) => ({ kind: r.kind, amount: Number(r.amount_microcents) }));
}

describe('credits: reservation, settlement and rejection', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => site.close());

  it('rejects a scrape with 402 INSUFFICIENT_CREDITS when the balance is zero, and the job polls as rejected', async () => {
    const { key, accountId } = await createTestAccount(stack, 0);
    const api = apiClient(stack.baseUrl, key);
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/article` });
    expect(res.status).to.equal(402);
    expect(res.body.error).to.equal('INSUFFICIENT_CREDITS');
    // The least a scrape runs with is its first tier, and estimated_tier names it (as the estimate route's does).
    expect(res.body.details).to.include({ required_credits: 1, available_credits: 0, estimated_tier: '1' });
    expect(res.body.details.job_id).to.be.a('string');
    const job = await api.get(`/api/v1/jobs/${res.body.details.job_id}`);
    expect(job.status).to.equal(200);
    expect(job.body.status).to.equal('rejected');
    expect(job.body.error).to.deep.include({ code: 'INSUFFICIENT_CREDITS' });
    expect(job.body.error.details).to.include({ required_credits: 1, available_credits: 0, estimated_tier: '1' });
    expect(await ledger(stack, res.body.details.job_id)).to.deep.equal([]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(0);
  });

  it('estimates what the balance covers, as the scrape cuts its plan, and says when it covers nothing', async () => {
    const { key } = await createTestAccount(stack, 1_000);
    const api = apiClient(stack.baseUrl, key);
    const auto = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/article` });
    expect(auto.body).to.deep.include({ tier_plan: ['1', '2'], max_possible_credits: 1.5, affordable: true });
    const browser = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/article`, advanced: { render_js: true } });
    expect(browser.body).to.deep.include({ estimated_credits: 20, affordable: false });
    const scrape = await api.post('/api/v1/scrape', { url: `${site.url}/article`, advanced: { render_js: true } });
    expect(scrape.status).to.equal(402);
  });

  it('rejects an async scrape with 402 too, never dispatching it', async () => {
    const { key } = await createTestAccount(stack, 199);
    const before = site.hits('/status/200');
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: `${site.url}/status/200`, sync: false });
    expect(res.status).to.equal(402);
    await new Promise((r) => setTimeout(r, 500));
    expect(site.hits('/status/200')).to.equal(before);
  });

  it('charges a successful scrape once: a reservation and a settlement of the unused part', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status).to.equal(200);
    expect(await ledger(stack, res.body.job_id)).to.deep.equal([
      { kind: 'reserve', amount: -4_000 },
      { kind: 'settle', amount: 3_800 },
    ]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(9_800);
  });

  it('runs a small balance on the tiers it can pay for, reserving only those', async () => {
    // 5 credits: tiers 1 and 2 (1.5 credits) fit, the browser tiers (10 and 20) do not.
    const { key, accountId } = await createTestAccount(stack, 1_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.billing).to.include({ total_credits: 1, tier_used: '1' });
    expect(await ledger(stack, res.body.job_id)).to.deep.equal([
      { kind: 'reserve', amount: -300 },
      { kind: 'settle', amount: 100 },
    ]);
    const plan = await stack.pool.query<{ tier_plan: string[] }>('SELECT tier_plan FROM jobs WHERE id = $1', [res.body.job_id]);
    expect(plan.rows[0]!.tier_plan).to.deep.equal(['1', '2']);
    expect(await balanceOf(stack.pool, accountId)).to.equal(800);
  });

  it('refuses a request whose cheapest tier costs more than max_credits with 400 EXCEEDS_COST_LIMIT', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', {
      url: `${site.url}/article`,
      cost_controls: { max_credits: 0.5 },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('EXCEEDS_COST_LIMIT');
    expect(await balanceOf(stack.pool, accountId)).to.equal(10_000);
  });

  it('answers 503 when the request needs a tier this deployment does not run, charging nothing', async () => {
    const { key, accountId } = await createTestAccount(stack, 100_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', {
      url: `${site.url}/article`,
      cost_controls: { force_tier: '3.5' },
    });
    expect(res.status).to.equal(503);
    expect(res.body.error).to.equal('SERVICE_UNAVAILABLE');
    expect(res.body.details.required_tiers).to.deep.equal(['3.5']);
    expect(await balanceOf(stack.pool, accountId)).to.equal(100_000);
  });

  it('refuses force_tier above max_tier', async () => {
    const { key } = await createTestAccount(stack, 100_000);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', {
      url: `${site.url}/article`,
      cost_controls: { force_tier: '3', max_tier: '2' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('VALIDATION_ERROR');
  });
});
