import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('response caching: cache, cache_ttl and force_refresh', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let a: { accountId: string; key: string };
  let b: { accountId: string; key: string };
  let served = 0;

  before(async () => {
    stack = await getStack();
    site = await startSiteServer({
      routes: [
        {
          // Each fetch is told apart by its number, so a reused result shows.
          path: '/cache/:name',
          handle: ({ res, params }) => {
            served += 1;
            const body = `<!doctype html><html><head><title>Visit ${served}</title></head><body><main><h1>${params['name']} visit ${served}</h1><p>This page was served ${served} times by the harbour office and it says so in a full sentence.</p></main></body></html>`;
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
            res.end(body);
          },
        },
      ],
    });
    a = await createTestAccount(stack, 1_000_000);
    b = await createTestAccount(stack, 1_000_000);
  });
  after(async () => site.close());

  const scrape = (account: { key: string }, body: Record<string, unknown>) => apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', body);
  const hits = (name: string) => site.hits(`/cache/${name}`);

  it('answers a repeated request from the cache, free and marked cached, with a job record of its own', async () => {
    const url = `${site.url}/cache/first`;
    const first = await scrape(a, { url, cache: true, formats: ['markdown', 'text'] });
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).to.equal(200);
    expect(first.body.cached).to.equal(false);
    expect(first.body.billing.total_credits).to.equal(1);

    const before = await balanceOf(stack.pool, a.accountId);
    // The same request, formats in another order.
    const again = await scrape(a, { url, cache: true, formats: ['text', 'markdown'], timeout: 30, sync: true });
    expect(again.status).to.equal(200);
    expect(again.body.cached).to.equal(true);
    expect(again.body.content).to.deep.equal(first.body.content);
    expect(again.body.billing).to.include({ total_credits: 0, tier_used: '1' });
    expect(again.body.job_id).to.not.equal(first.body.job_id);
    expect(again.headers.get('x-service-credits')).to.equal('0');
    expect(await balanceOf(stack.pool, a.accountId)).to.equal(before);
    expect(hits('first')).to.equal(1);

    const job = await apiClient(stack.baseUrl, a.key).get(`/api/v1/jobs/${again.body.job_id}`);
    expect(job.body.status).to.equal('succeeded');
    expect(job.body.result.cached).to.equal(true);

    // sync: false keeps its contract: 202 with a poll URL, the job already succeeded.
    const queued = await scrape(a, { url, cache: true, formats: ['markdown', 'text'], sync: false });
    expect(queued.status).to.equal(202);
    expect(queued.body.status).to.equal('succeeded');
    const polled = await apiClient(stack.baseUrl, a.key).get(queued.body.poll_url);
    expect(polled.body.result.cached).to.equal(true);
    expect(hits('first')).to.equal(1);
  });

  it('serves another account the same public result, but never a result made with private options', async () => {
    const url = `${site.url}/cache/shared`;
    await scrape(a, { url, cache: true, formats: ['markdown'] });
    const other = await scrape(b, { url, cache: true, formats: ['markdown'] });
    expect(other.body.cached).to.equal(true);
    expect(hits('shared')).to.equal(1);

    const privateUrl = `${site.url}/cache/private`;
    const withCookies = { url: privateUrl, cache: true, formats: ['markdown'], advanced: { cookies: { session: 'abc' } } };
    expect((await scrape(a, withCookies)).body.cached).to.equal(false);
    expect((await scrape(a, withCookies)).body.cached).to.equal(true);
    const fromB = await scrape(b, withCookies);
    expect(fromB.body.cached).to.equal(false);
    expect(hits('private')).to.equal(2);
  });

  it('does not reuse a result for a request that asks for something else, or without cache: true', async () => {
    const url = `${site.url}/cache/varied`;
    await scrape(a, { url, cache: true, formats: ['markdown'] });
    expect((await scrape(a, { url, cache: true, formats: ['html'] })).body.cached).to.equal(false);
    expect((await scrape(a, { url, cache: true, formats: ['markdown'], advanced: { only_main_content: false } })).body.cached).to.equal(false);
    expect((await scrape(a, { url, formats: ['markdown'] })).body.cached).to.equal(false);
    expect(hits('varied')).to.equal(4);
  });

  it('fetches again with force_refresh and keeps the fresh result for the next request', async () => {
    const url = `${site.url}/cache/refresh`;
    const first = await scrape(a, { url, cache: true, formats: ['markdown'] });
    const fresh = await scrape(a, { url, cache: true, force_refresh: true, formats: ['markdown'] });
    expect(fresh.body.cached).to.equal(false);
    expect(fresh.body.billing.total_credits).to.equal(1);
    expect(fresh.body.content).to.not.equal(first.body.content);
    const next = await scrape(a, { url, cache: true, formats: ['markdown'] });
    expect(next.body.cached).to.equal(true);
    expect(next.body.content).to.equal(fresh.body.content);
    expect(hits('refresh')).to.equal(2);
  });

  it('keeps a result for cache_ttl seconds (900 by default)', async () => {
    const ttlOf = async (url: string, extra: Record<string, unknown>) => {
      const res = await scrape(a, { url, cache: true, formats: ['text'], ...extra });
      expect(res.status).to.equal(200);
      const keys = await stack.redis.keys('*result-cache:*');
      const ttls = await Promise.all(keys.map((k) => stack.redis.ttl(k)));
      return ttls;
    };
    const defaults = await ttlOf(`${site.url}/cache/ttl-default`, {});
    expect(defaults.some((t) => t > 890 && t <= 900)).to.equal(true);
    const short = await ttlOf(`${site.url}/cache/ttl-short`, { cache_ttl: 60 });
    expect(short.some((t) => t > 50 && t <= 60)).to.equal(true);
  });

  it('never caches a failure or a POST', async () => {
    const missing = `${site.url}/status/404`;
    expect((await scrape(a, { url: missing, cache: true })).status).to.equal(422);
    const before = site.hits('/status/404');
    expect((await scrape(a, { url: missing, cache: true })).status).to.equal(422);
    expect(site.hits('/status/404')).to.equal(before + 1);

    const url = `${site.url}/cache/posted`;
    await scrape(a, { url, cache: true, method: 'POST', body: '{"q":1}', formats: ['markdown'] });
    const again = await scrape(a, { url, cache: true, method: 'POST', body: '{"q":1}', formats: ['markdown'] });
    expect(again.body.cached).to.equal(false);
    expect(hits('posted')).to.equal(2);
  });

  it('answers a request that spells out defaults from the same entry', async () => {
    const url = `${site.url}/cache/spelled`;
    await scrape(a, { url, cache: true, formats: ['markdown'] });
    const spelled = await scrape(a, { url, cache: true, formats: ['markdown'], advanced: { remove_cookie_banners: true, only_main_content: true, markdown: true } });
    expect(spelled.body.cached).to.equal(true);
    expect(hits('spelled')).to.equal(1);
  });

  it('refuses an account whose subscription lapsed, even what the cache holds', async () => {
    const lapsed = await createTestAccount(stack, 1_000_000);
    const url = `${site.url}/cache/lapsed`;
    expect((await scrape(lapsed, { url, cache: true, formats: ['markdown'] })).status).to.equal(200);
    await stack.pool.query("UPDATE accounts SET subscription_status = 'past_due' WHERE id = $1", [lapsed.accountId]);
    const refused = await scrape(lapsed, { url, cache: true, formats: ['markdown'] });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(402);
    expect(refused.body.error).to.equal('SUBSCRIPTION_INACTIVE');
    // Another account still gets the public entry.
    expect((await scrape(a, { url, cache: true, formats: ['markdown'] })).body.cached).to.equal(true);
  });

  it('refuses a cache_ttl outside 60 to 86,400 seconds', async () => {
    for (const cache_ttl of [59, 86_401]) {
      const res = await scrape(a, { url: `${site.url}/cache/bad`, cache: true, cache_ttl });
      expect(res.status).to.equal(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('cache_ttl');
    }
  });
});
