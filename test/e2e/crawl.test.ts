import { expect } from 'chai';
import { DOCS_SITE_PAGES } from '../fixtures/docs-site.js';
import { startSiteServer, type SiteRoute, type SiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, linkPage, waitForCrawl } from './crawl-support.js';

/** A small site: robots.txt disallowing /private, a sitemap naming an orphan page, links two levels deep. */
function siteRoutes(): SiteRoute[] {
  return [
    {
      path: '/robots.txt',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`User-agent: *\nDisallow: /private\nSitemap: ${origin}/sitemap.xml\n`);
      },
    },
    {
      path: '/sitemap.xml',
      handle: ({ res, origin }) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/orphan</loc></url></urlset>`);
      },
    },
    linkPage('/', 'Home', ['/docs/guide', '/docs/api', '/private/secret', '/blog/launch', '/blog/launch#top', '/missing']),
    ...DOCS_SITE_PAGES.map(([path, title, links]) => linkPage(path, title, links)),
    linkPage('/orphan', 'Orphan', []),
  ];
}

describe('POST /api/v1/crawl (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    site = await startSiteServer({ routes: siteRoutes() });
    account = await createTestAccount(stack, 10_000_000);
  });
  after(() => site.close());

  const api = () => apiClient(stack.baseUrl, account.key);
  const paths = (pages: Array<{ url: string }>) => pages.map((p) => new URL(p.url).pathname).sort();

  it('crawls the site from links and the sitemap, skips what robots.txt disallows, charges each page once and refunds the rest', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 20 });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    expect(start.body).to.include({ status: 'discovering', estimated_pages: 20, total_enqueued: 1, estimated_credits: 20 });
    const done = await waitForCrawl(api(), start.body.crawl_id, 60_000);
    expect(done.status, JSON.stringify(done)).to.equal('partial');
    const pages = await crawlResults(api(), start.body.crawl_id);
    expect(paths(pages)).to.deep.equal([
      '/',
      '/blog/launch',
      '/docs/api',
      '/docs/api/errors',
      '/docs/guide',
      '/docs/guide/install',
      '/docs/guide/install/linux',
      '/missing',
      '/orphan',
    ]);
    const missing = pages.find((p) => p.url.endsWith('/missing'));
    expect(missing).to.deep.include({ status: 'failed', credits_used: 0, result: null });
    expect(missing.error.code).to.equal('TARGET_NOT_FOUND');
    const home = pages.find((p) => new URL(p.url).pathname === '/');
    expect(home).to.include({ status: 'completed', depth: 0, credits_used: 1, tier_used: '1' });
    expect(home.result.content).to.match(/# Home/);
    expect(site.hits('/private/secret')).to.equal(0);
    expect(site.hits('/docs/guide')).to.equal(1);
    expect(done).to.include({ completed: 8, failed: 1, total: 9, in_progress: 0, current_depth: 3 });
    expect(done.billing).to.deep.include({ credits_debited: 20, credits_used: 8, credits_refunded: 12, is_byop: false });
    expect(done.billing.tier_breakdown).to.deep.equal({ '1': 8 });
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 8 * 200);
  });

  it('keeps to include and exclude patterns and max_depth', async () => {
    const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, include_patterns: ['/docs/**'], exclude_patterns: ['/docs/api/**'], max_depth: 2, sitemap: 'skip' });
    const done = await waitForCrawl(api(), start.body.crawl_id, 60_000);
    expect(done.status).to.equal('completed');
    expect(paths(await crawlResults(api(), start.body.crawl_id))).to.deep.equal(['/', '/docs/guide', '/docs/guide/install']);
  });

  it('refuses invalid requests with a 400 envelope before anything is charged', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const bad = [
      { url: 'ftp://example.com/' },
      { url: `${site.url}/`, max_pages: 0 },
      { url: `${site.url}/`, max_pages: 100_001 },
      { url: `${site.url}/`, max_depth: 51 },
      { url: `${site.url}/`, cache_ttl: 30 },
      { url: `${site.url}/`, webhook_url: 'https://hooks.example/a', webhook: { url: 'https://hooks.example/b' } },
      { url: `${site.url}/`, cost_controls: { max_tier: '2', force_tier: '3' } },
      { url: `${site.url}/`, advanced: { render_js: true }, cost_controls: { max_tier: '2' } },
      { url: `${site.url}/`, advanced: { render_js: true, wait_for: 'main[data-x' } },
      { url: `${site.url}/`, formats: ['rag'] },
      { url: `${site.url}/`, storage: 'ftp' },
      { url: `${site.url}/`, output: { type: 's3', bucket: 'b' } },
      { url: `${site.url}/`, headers: { 'bad header': 'x' } },
      { url: `${site.url}/`, surprise: true },
    ];
    for (const body of bad) {
      const res = await api().post('/api/v1/crawl', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
    }
    const tooSmall = await api().post('/api/v1/crawl', { url: `${site.url}/`, cost_controls: { max_credits: 0.5 } });
    expect(tooSmall.status).to.equal(400);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });

  it('answers 402 when the balance cannot cover the planned pages, and 404 for another account\'s crawl', async () => {
    const poor = await createTestAccount(stack, 1_000);
    const res = await apiClient(stack.baseUrl, poor.key).post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 10 });
    expect(res.status).to.equal(402);
    expect(res.body.error).to.equal('INSUFFICIENT_CREDITS');
    expect(res.body.details).to.include({ required_credits: 10, available_credits: 5 });
    const mine = await api().post('/api/v1/crawl', { url: `${site.url}/`, max_depth: 0, sitemap: 'skip' });
    const other = apiClient(stack.baseUrl, poor.key);
    expect((await other.get(`/api/v1/crawl/${mine.body.crawl_id}`)).status).to.equal(404);
    expect((await other.call('DELETE', `/api/v1/crawl/${mine.body.crawl_id}`)).status).to.equal(404);
    expect((await other.get(`/api/v1/crawl/${mine.body.crawl_id}/stream`)).status).to.equal(404);
    expect((await api().get('/api/v1/crawl/not-a-crawl')).status).to.equal(404);
    await waitForCrawl(api(), mine.body.crawl_id, 30_000);
  });
});

/** A generated site: / links to /a/1…/a/8 and /b/1…/b/8; every page answers after `delayMs`. */
function wideSite(delayMs: number, seen: string[] = []): SiteRoute[] {
  const links = [...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `/a/${n}`), ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `/b/${n}`)];
  const slow = (route: SiteRoute): SiteRoute => ({
    path: route.path,
    handle: (ctx) => {
      seen.push(`${ctx.url.pathname} ${ctx.req.headers['x-crawl-test'] ?? ''}`);
      return new Promise<void>((resolve) => setTimeout(() => resolve(route.handle(ctx) as void), delayMs));
    },
  });
  return [slow(linkPage('/', 'Wide home', links)), slow(linkPage('/a/:n', 'Section A page', [])), slow(linkPage('/b/:n', 'Section B page about pricing', []))];
}

describe('crawl options, states and the event stream (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    account = await createTestAccount(stack, 10_000_000);
  });
  const api = () => apiClient(stack.baseUrl, account.key);
  const pathsOf = async (id: string) => (await crawlResults(api(), id)).map((p) => new URL(p.url).pathname).sort();

  it('scrapes in priority order and drops the lowest-scored pages at max_pages; sends the custom headers', async () => {
    const seen: string[] = [];
    const site = await startSiteServer({ routes: wideSite(0, seen) });
    try {
      const start = await api().post('/api/v1/crawl', {
        url: `${site.url}/`,
        max_pages: 6,
        sitemap: 'skip',
        respect_robots: false,
        priority: { boost_patterns: ['/b/*'], demote_patterns: ['/b/8'] },
        headers: { 'X-Crawl-Test': 'yes' },
      });
      const done = await waitForCrawl(api(), start.body.crawl_id, 60_000);
      expect(done).to.include({ status: 'completed', completed: 6 });
      expect(await pathsOf(start.body.crawl_id)).to.deep.equal(['/', '/b/1', '/b/2', '/b/3', '/b/4', '/b/5']);
      expect(seen.every((s) => s.endsWith(' yes'))).to.equal(true);
      expect(done.billing).to.deep.include({ credits_debited: 6, credits_used: 6, credits_refunded: 0 });
    } finally {
      await site.close();
    }
  });

  it('keeps each budget pattern to its count, the longest pattern winning and * catching the rest', async () => {
    const site = await startSiteServer({ routes: wideSite(0) });
    try {
      const budget = { '/a/**': 2, '/b/**': 1, '/b/[1-2]': 2, '*': 1 };
      const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip', budget });
      expect(start.body.estimated_pages).to.equal(50);
      const done = await waitForCrawl(api(), start.body.crawl_id, 60_000);
      expect(await pathsOf(start.body.crawl_id)).to.deep.equal(['/', '/a/1', '/a/2', '/b/1', '/b/2', '/b/3']);
      expect(done.budget_status.budget).to.deep.equal(budget);
      expect(done.budget_status.counts).to.deep.equal({ '/a/**': 2, '/b/**': 1, '/b/[1-2]': 2, '*': 1 });
      expect(done.budget_status.exhausted.sort()).to.deep.equal(['*', '/a/**', '/b/**', '/b/[1-2]']);
      expect(done.completed).to.equal(6);
      const capped = await api().post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip', budget: { '/a/**': 2, '/': 1 } });
      expect(capped.body).to.include({ estimated_pages: 3, estimated_credits: 3 });
      expect(await pathsOf((await waitForCrawl(api(), capped.body.crawl_id, 60_000)).crawl_id)).to.deep.equal(['/', '/a/1', '/a/2']);
    } finally {
      await site.close();
    }
  });

  it('reads pages from the cache for free when cache is on, and fetches again with force_refresh', async () => {
    const site = await startSiteServer({ routes: wideSite(0) });
    try {
      const body = { url: `${site.url}/`, sitemap: 'skip', max_pages: 3, cache: true, cache_ttl: 600 };
      const first = await waitForCrawl(api(), (await api().post('/api/v1/crawl', body)).body.crawl_id, 60_000);
      expect(first.billing.tier_breakdown).to.deep.equal({ '1': 3 });
      const hits = site.hits('/');
      const second = await waitForCrawl(api(), (await api().post('/api/v1/crawl', body)).body.crawl_id, 60_000);
      expect(second.billing).to.deep.include({ credits_used: 0, credits_refunded: 3 });
      expect(second.billing.tier_breakdown).to.deep.equal({ cache: 3 });
      expect(site.hits('/')).to.equal(hits);
      const third = await waitForCrawl(api(), (await api().post('/api/v1/crawl', { ...body, force_refresh: true })).body.crawl_id, 60_000);
      expect(third.billing.credits_used).to.equal(3);
      expect(site.hits('/')).to.equal(hits + 1);
    } finally {
      await site.close();
    }
  });

  it('waits out Crawl-delay and backs off after 429', async () => {
    let limited = 0;
    const site = await startSiteServer({
      routes: [
        {
          path: '/robots.txt',
          handle: ({ res }) => {
            res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
          },
        },
        linkPage('/', 'Polite home', ['/one', '/two', '/busy']),
        linkPage('/one', 'One', []),
        linkPage('/two', 'Two', []),
        {
          path: '/busy',
          handle: (ctx) => {
            if (limited++ > 0) return linkPage('/busy', 'Busy', []).handle(ctx);
            ctx.res.writeHead(429, { 'retry-after': '1' }).end('slow down');
          },
        },
      ],
    });
    try {
      const started = Date.now();
      const done = await waitForCrawl(api(), (await api().post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip' })).body.crawl_id, 60_000);
      expect(done).to.include({ status: 'completed', completed: 4 });
      expect(site.hits('/busy')).to.equal(2);
      // Five fetches one second apart at the least.
      expect(Date.now() - started).to.be.at.least(4_000);
    } finally {
      await site.close();
    }
  });

  it('cancels pending pages, refunds them, keeps completed ones, and resumes with only new work charged', async () => {
    const site = await startSiteServer({ routes: wideSite(400) });
    try {
      const before = await balanceOf(stack.pool, account.accountId);
      const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip', max_pages: 17 });
      const id = start.body.crawl_id;
      for (;;) {
        const s = (await api().get(`/api/v1/crawl/${id}`)).body;
        if (s.completed >= 1 && s.in_progress > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const cancelled = await api().call('DELETE', `/api/v1/crawl/${id}`);
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body.status).to.equal('cancelled');
      expect(cancelled.body.cancelled_jobs).to.be.greaterThan(0);
      const state = (await api().get(`/api/v1/crawl/${id}`)).body;
      expect(state.status).to.equal('cancelled');
      expect(cancelled.body.credits_used).to.equal(state.completed);
      expect(cancelled.body.credits_refunded).to.equal(17 - state.completed);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - state.completed * 200);
      expect((await api().call('POST', `/api/v1/crawl/${id}/cancel`)).status).to.equal(409);
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await api().get(`/api/v1/crawl/${id}`)).body.completed).to.equal(state.completed);

      const resumed = await api().post(`/api/v1/crawl/${id}/resume`, {});
      expect(resumed.status, JSON.stringify(resumed.body) + JSON.stringify((await api().get(`/api/v1/crawl/${id}`)).body)).to.equal(200);
      expect(resumed.body).to.include({ status: 'scraping', credits_debited: 17 - state.completed });
      expect(resumed.body.requeued).to.equal(cancelled.body.cancelled_jobs);
      const done = await waitForCrawl(api(), id, 60_000);
      expect(done).to.include({ status: 'completed', completed: 17 });
      expect(site.hits('/')).to.equal(1);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 17 * 200);
      expect((await api().post(`/api/v1/crawl/${id}/resume`, {})).status).to.equal(409);
      expect((await api().post(`/api/v1/crawl/${id}/resume`, { urls: ['https://elsewhere.example/'] })).status).to.equal(409);
    } finally {
      await site.close();
    }
  });

  it('under max_credits takes more pages as they cost less than reserved, and a resumed round reserves no more than max_credits', async () => {
    const site = await startSiteServer({ routes: wideSite(400) });
    try {
      const before = await balanceOf(stack.pool, account.accountId);
      // 40 credits cover two pages at the browser's 20; every page here is plain HTML and costs 1 at tier 1.
      const body = { url: `${site.url}/`, sitemap: 'skip', max_pages: 12, cost_controls: { max_tier: '4', max_credits: 40 } };
      const start = await api().post('/api/v1/crawl', body);
      expect(start.status, JSON.stringify(start.body)).to.equal(202);
      expect(start.body).to.include({ estimated_pages: 2, estimated_credits: 40 });
      const id = start.body.crawl_id;
      for (;;) {
        const s = (await api().get(`/api/v1/crawl/${id}`)).body;
        if (s.status !== 'scraping' && s.status !== 'discovering') break;
        if (s.completed >= 4 && s.in_progress > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // Pages go one at a time (what is left of 40 credits covers one more page at 20), 400 ms each: still running.
      const cancelled = await api().call('DELETE', `/api/v1/crawl/${id}`);
      expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
      const state = (await api().get(`/api/v1/crawl/${id}`)).body;
      // More pages than the first reservation's two were taken, each paid at its tier.
      expect(state.completed).to.be.at.least(3);
      expect(state.billing).to.deep.include({ credits_debited: 40, credits_used: state.completed, credits_refunded: 40 - state.completed });
      // The resumed round reserves the pages still planned as far as max_credits covers them: two at 20.
      const resumed = await api().post(`/api/v1/crawl/${id}/resume`, {});
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
      expect(resumed.body.credits_debited).to.equal(40);
      const done = await waitForCrawl(api(), id, 60_000);
      expect(done).to.include({ status: 'completed', completed: 12 });
      expect(done.billing.tier_breakdown).to.deep.equal({ '1': 12 });
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 12 * 200);
    } finally {
      await site.close();
    }
  });

  it('lists crawls with filters, sort and order', async () => {
    const all = (await api().get('/api/v1/crawl?limit=100')).body;
    expect(all.total).to.be.greaterThan(3);
    const times = all.crawls.map((c: { created_at: string }) => c.created_at);
    expect([...times].sort().reverse()).to.deep.equal(times);
    const asc = (await api().get('/api/v1/crawl?limit=100&order=asc')).body.crawls.map((c: { crawl_id: string }) => c.crawl_id);
    expect(asc).to.deep.equal(all.crawls.map((c: { crawl_id: string }) => c.crawl_id).reverse());
    const completed = (await api().get('/api/v1/crawl?status=completed&domain=127.0.0')).body;
    expect(completed.crawls.length).to.be.greaterThan(0);
    for (const c of completed.crawls) expect(c.status).to.equal('completed');
    const item = completed.crawls[0];
    expect(item).to.have.keys([
      'crawl_id', 'url', 'status', 'total_pages', 'completed_pages', 'failed_pages', 'credits_debited', 'credits_used', 'credits_refunded',
      'max_depth', 'max_pages', 'tier_breakdown', 'created_at', 'updated_at', 'completed_at', 'duration_seconds',
    ]);
    expect(item.duration_seconds).to.be.a('number');
    expect((await api().get('/api/v1/crawl?domain=nothing-like-this')).body.total).to.equal(0);
    expect((await api().get('/api/v1/crawl?date_from=2999-01-01')).body.total).to.equal(0);
    expect((await api().get('/api/v1/crawl?limit=0')).status).to.equal(400);
    expect((await api().get('/api/v1/crawl?sort=url')).status).to.equal(400);
  });

  it('streams the events with increasing ids; a reconnect with Last-Event-ID resumes with nothing lost or repeated', async () => {
    const site = await startSiteServer({ routes: wideSite(150) });
    try {
      const id = (await api().post('/api/v1/crawl', { url: `${site.url}/`, sitemap: 'skip', max_pages: 12 })).body.crawl_id;
      const first = await readStream(stack.baseUrl, account.key, id, undefined, 4);
      expect(first.events).to.have.length(4);
      const last = first.events[first.events.length - 1]!.id!;
      const rest = await readStream(stack.baseUrl, account.key, id, String(last), Infinity);
      const stored = [...first.events, ...rest.events].filter((e) => e.id !== undefined);
      const ids = stored.map((e) => e.id!);
      expect(ids).to.deep.equal(ids.map((_, i) => i + 1));
      const completedPages = stored.filter((e) => e.event === 'page.completed');
      expect(completedPages).to.have.length(12);
      expect(new Set(completedPages.map((e) => e.data.url)).size).to.equal(12);
      expect(completedPages[0]!.data).to.include({ status: 'completed', cost_microcents: 200, tier_used: '1' });
      expect(stored.some((e) => e.event === 'crawl.progress')).to.equal(true);
      const end = stored[stored.length - 1]!;
      expect(end.event).to.equal('crawl.completed');
      expect(end.data).to.include({ crawl_id: id, status: 'completed', total: 12, completed: 12, failed: 0, credits_used: 12 });
      // After the end, a reconnect from the last id has nothing more and closes at once.
      const after = await readStream(stack.baseUrl, account.key, id, String(end.id), Infinity);
      expect(after.events.filter((e) => e.id !== undefined)).to.have.length(0);
      const outbox = await stack.pool.query<{ type: string }>(`SELECT type FROM event_outbox WHERE account_id = $1 AND payload->>'crawl_id' = $2`, [account.accountId, id]);
      expect(outbox.rows.map((r) => r.type)).to.deep.equal(['crawl.completed']);
    } finally {
      await site.close();
    }
  });
});

interface StreamEvent {
  id?: number;
  event: string;
  data: any;
}

/** Reads a crawl's event stream until `max` stored events arrived or the server closed it. */
async function readStream(baseUrl: string, key: string, crawlId: string, lastEventId: string | undefined, max: number): Promise<{ events: StreamEvent[] }> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/api/v1/crawl/${crawlId}/stream`, {
    headers: { 'X-API-Key': key, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
    signal: controller.signal,
  });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
  const events: StreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields = Object.fromEntries(frame.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
        events.push({ ...(fields['id'] ? { id: Number(fields['id']) } : {}), event: fields['event']!, data: JSON.parse(fields['data']!) });
        if (events.filter((e) => e.id !== undefined).length >= max) {
          controller.abort();
          return { events };
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return { events };
}
