import { expect } from 'chai';
import { startSiteServer, type SiteRoute, type SiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, linkPage, waitForCrawl, type Api } from './crawl-support.js';

type SiteState = { version: 1 | 2 | 3; homeDelayMs: number };

/**
 * A site in three versions. Version 1: home links /a, /b and /c. Version 2:
 * /b says something else under another title, /c is gone (no link, 404) and
 * home links /d instead. /a stays the same (its whitespace aside). Version 3:
 * version 1 with /c answering 404 though home still links it.
 */
function versionedSite(state: SiteState): SiteRoute[] {
  const v1: Record<string, SiteRoute> = {
    '/': linkPage('/', 'Home', ['/a', '/b', '/c']),
    '/a': linkPage('/a', 'Alpha', [], '<p>Alpha never changes.</p>'),
    '/b': linkPage('/b', 'Beta', [], '<p>Beta costs 10 euros.</p>'),
    '/c': linkPage('/c', 'Gamma', []),
  };
  const v2: Record<string, SiteRoute> = {
    '/': linkPage('/', 'Home', ['/a', '/b', '/d']),
    '/a': linkPage('/a', 'Alpha', [], '<p>Alpha    never changes.</p>\n\n\n'),
    '/b': linkPage('/b', 'Beta Two', [], '<p>Beta costs 12 euros.</p>'),
    '/d': linkPage('/d', 'Delta', []),
  };
  return ['/', '/a', '/b', '/c', '/d'].map((path) => ({
    path,
    handle: async (ctx) => {
      if (path === '/' && state.homeDelayMs > 0) await new Promise((r) => setTimeout(r, state.homeDelayMs));
      const route = state.version === 2 ? v2[path] : state.version === 3 && path === '/c' ? undefined : v1[path];
      if (!route) {
        ctx.res.writeHead(404, { 'content-type': 'text/html' });
        ctx.res.end('<h1>Not found</h1>');
        return;
      }
      await route.handle(ctx);
    },
  }));
}

describe('crawl change_tracking (end to end)', function () {
  this.timeout(180_000);
  let stack: TestStack;
  let site: SiteServer;
  const state: SiteState = { version: 1, homeDelayMs: 0 };
  before(async () => {
    stack = await getStack();
    site = await startSiteServer({ routes: versionedSite(state) });
  });
  after(() => site.close());

  const path = (url: string) => new URL(url).pathname;

  async function crawl(api: Api, changeTracking: Record<string, unknown>) {
    const start = await api.post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 10, sitemap: 'skip', change_tracking: changeTracking });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    const done = await waitForCrawl(api, start.body.crawl_id, 60_000);
    const pages = await crawlResults(api, start.body.crawl_id);
    const byPath = new Map(pages.map((p) => [path(p.url), p]));
    return { id: start.body.crawl_id as string, start: start.body, done, byPath };
  }

  async function ledgerSum(crawlId: string): Promise<number> {
    const res = await stack.pool.query<{ sum: string }>(`SELECT coalesce(sum(amount_microcents), 0)::text AS sum FROM ledger_entries WHERE reference LIKE $1`, [`crawl:${crawlId}:%`]);
    return Number(res.rows[0]!.sum);
  }

  it('reports new, changed, unchanged and removed pages with diffs against the previous crawl, and charges the content diff surcharge exactly', async () => {
    const account = await createTestAccount(stack, 10_000_000);
    const api = apiClient(stack.baseUrl, account.key);
    const tracking = { enabled: true, tracking_id: 'shop', mode: 'content', include_diff: true };
    state.version = 1;

    const balance0 = await balanceOf(stack.pool, account.accountId);
    const first = await crawl(api, tracking);
    // 1 credit a page plus 1 for the diff, reserved for all max_pages.
    expect(first.start.estimated_credits).to.equal(20);
    expect(first.done.status).to.equal('completed');
    expect([...first.byPath.keys()].sort()).to.deep.equal(['/', '/a', '/b', '/c']);
    expect(first.done.change_tracking).to.deep.equal({
      tracking_id: 'shop',
      mode: 'content',
      include_diff: true,
      previous_crawl_id: null,
      new: 4,
      changed: 0,
      unchanged: 0,
      removed: 0,
      removed_urls: [],
      removed_urls_truncated: false,
    });
    for (const page of first.byPath.values()) {
      expect(page.change_tracking).to.include({ status: 'new', previous_crawl_id: null, previous_hash: null, diff: null });
      expect(page.change_tracking.content_hash).to.match(/^[0-9a-f]{64}$/);
      expect(page.credits_used).to.equal(2);
    }
    expect(first.done.billing.credits_used).to.equal(8);
    expect(first.done.billing.tier_breakdown).to.deep.equal({ 1: 4 });
    expect(await ledgerSum(first.id)).to.equal(-8 * 200);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(balance0 - 8 * 200);

    state.version = 2;
    const second = await crawl(api, tracking);
    expect(second.done.status).to.equal('completed');
    expect(second.done.change_tracking).to.include({ previous_crawl_id: first.id, new: 1, changed: 2, unchanged: 1, removed: 1 });
    expect(second.done.change_tracking.removed_urls).to.deep.equal([`${site.url}/c`]);
    const status = (p: string) => second.byPath.get(p)!.change_tracking.status;
    expect(['/', '/a', '/b', '/d'].map(status)).to.deep.equal(['changed', 'unchanged', 'changed', 'new']);

    // Identical content (whitespace aside) hashes the same in both crawls.
    const alpha = second.byPath.get('/a')!.change_tracking;
    expect(alpha.content_hash).to.equal(first.byPath.get('/a')!.change_tracking.content_hash);
    expect(alpha).to.include({ previous_hash: alpha.content_hash, previous_crawl_id: first.id, diff: '' });
    expect(alpha.previous_scraped_at).to.be.a('string');

    const beta = second.byPath.get('/b')!.change_tracking;
    expect(beta.previous_hash).to.equal(first.byPath.get('/b')!.change_tracking.content_hash);
    expect(beta.content_hash).to.not.equal(beta.previous_hash);
    expect(beta.diff).to.match(/^--- previous\n\+\+\+ current\n@@ /);
    expect(beta.diff).to.include('\n-Beta costs 10 euros.\n').and.include('\n+Beta costs 12 euros.\n');
    expect(second.byPath.get('/d')!.change_tracking).to.include({ status: 'new', diff: null });

    expect(second.done.billing.credits_used).to.equal(8);
    expect(await ledgerSum(second.id)).to.equal(-8 * 200);

    // The stream's page.completed events (stored as the stream serves them) carry the change, without the diff.
    const events = await stack.pool.query<{ data: any }>(`SELECT data FROM crawl_events WHERE crawl_id = $1 AND event = 'page.completed'`, [second.id]);
    const eventChange = new Map(events.rows.map((e) => [path(e.data.url), e.data.change_tracking]));
    expect(eventChange.get('/b')).to.deep.equal({ status: 'changed', content_hash: beta.content_hash, previous_hash: beta.previous_hash });
    expect(eventChange.get('/d')).to.deep.include({ status: 'new', previous_hash: null });
    expect(eventChange.size).to.equal(4);

    // The second crawl is now the baseline: a third crawl of the unchanged site finds nothing new.
    const third = await crawl(api, tracking);
    expect(third.done.change_tracking).to.include({ previous_crawl_id: second.id, new: 0, changed: 0, unchanged: 4, removed: 0 });
  });

  it('compares structured fields field by field and charges two credits a page for their diff', async () => {
    const account = await createTestAccount(stack, 10_000_000);
    const api = apiClient(stack.baseUrl, account.key);
    const tracking = { enabled: true, tracking_id: 'fields', mode: 'structured', include_diff: true };
    state.version = 1;
    const first = await crawl(api, tracking);
    expect(first.start.estimated_credits).to.equal(30);
    expect(first.done.billing.credits_used).to.equal(12);
    state.version = 2;
    const second = await crawl(api, tracking);
    // Home's links changed but not its title or metadata: structured mode sees it unchanged.
    expect(second.done.change_tracking).to.include({ mode: 'structured', new: 1, changed: 1, unchanged: 2, removed: 1 });
    expect(second.byPath.get('/')!.change_tracking.status).to.equal('unchanged');
    const beta = second.byPath.get('/b')!.change_tracking;
    expect(beta.status).to.equal('changed');
    expect(beta.diff).to.deep.include({ field: 'title', old: 'Beta', new: 'Beta Two', change: 'modified' });
    expect(second.byPath.get('/a')!.change_tracking).to.deep.include({ status: 'unchanged', diff: [] });
    expect(second.byPath.get('/b')!.credits_used).to.equal(3);
    expect(await ledgerSum(second.id)).to.equal(-12 * 200);
  });

  it('without include_diff charges the plain page price and shows no diff; the tracking id defaults to the start host; accounts do not share baselines', async () => {
    const owner = await createTestAccount(stack, 10_000_000);
    const other = await createTestAccount(stack, 10_000_000);
    const ownerApi = apiClient(stack.baseUrl, owner.key);
    state.version = 1;
    const first = await crawl(ownerApi, { enabled: true });
    expect(first.start.estimated_credits).to.equal(10);
    expect(first.done.change_tracking).to.include({ tracking_id: `127.0.0.1:${site.port}`, mode: 'content', include_diff: false, new: 4 });
    expect(first.done.billing.credits_used).to.equal(4);
    expect(await ledgerSum(first.id)).to.equal(-4 * 200);
    const second = await crawl(ownerApi, { enabled: true });
    expect(second.done.change_tracking).to.include({ previous_crawl_id: first.id, unchanged: 4, new: 0 });
    for (const page of second.byPath.values()) {
      expect(page.change_tracking).to.not.have.property('diff');
      expect(page.credits_used).to.equal(1);
    }

    // Another account crawling the same site under the same default id starts from nothing.
    const elsewhere = await crawl(apiClient(stack.baseUrl, other.key), { enabled: true });
    expect(elsewhere.done.change_tracking).to.include({ tracking_id: `127.0.0.1:${site.port}`, previous_crawl_id: null, new: 4, unchanged: 0 });
  });

  it('reports a page that now answers 404 as removed, on its failed result and in the summary', async () => {
    const account = await createTestAccount(stack, 10_000_000);
    const api = apiClient(stack.baseUrl, account.key);
    const tracking = { enabled: true, tracking_id: 'gone' };
    state.version = 1;
    const first = await crawl(api, tracking);
    state.version = 3;
    const second = await crawl(api, tracking);
    expect(second.done.status).to.equal('partial');
    expect(second.done.change_tracking).to.include({ new: 0, changed: 0, unchanged: 3, removed: 1 });
    expect(second.done.change_tracking.removed_urls).to.deep.equal([`${site.url}/c`]);
    const gone = second.byPath.get('/c')!;
    expect(gone.status).to.equal('failed');
    expect(gone.credits_used).to.equal(0);
    expect(gone.change_tracking).to.include({
      status: 'removed',
      previous_crawl_id: first.id,
      previous_hash: first.byPath.get('/c')!.change_tracking.content_hash,
      content_hash: null,
    });
    // Forgotten once removed: found again, it is new.
    state.version = 1;
    const third = await crawl(api, tracking);
    expect(third.byPath.get('/c')!.change_tracking).to.include({ status: 'new', previous_hash: null });
    expect(third.done.change_tracking).to.include({ new: 1, unchanged: 3, removed: 0 });
  });

  it('runs one crawl per tracking id at a time, and leaves pages without change_tracking when it is off', async () => {
    const account = await createTestAccount(stack, 10_000_000);
    const api = apiClient(stack.baseUrl, account.key);
    state.version = 1;
    state.homeDelayMs = 3_000;
    try {
      const running = await api.post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 10, change_tracking: { enabled: true, tracking_id: 'busy' } });
      expect(running.status).to.equal(202);
      const twin = await api.post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 10, change_tracking: { enabled: true, tracking_id: 'busy' } });
      expect(twin.status).to.equal(409);
      expect(twin.body).to.include({ error: 'CONFLICT' });
      expect(twin.body.details).to.include({ tracking_id: 'busy', crawl_id: running.body.crawl_id });
      // Once it is cancelled another may start; the cancelled one cannot resume while that one runs.
      expect((await api.call('DELETE', `/api/v1/crawl/${running.body.crawl_id}`)).status).to.equal(200);
      const next = await api.post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 10, change_tracking: { enabled: true, tracking_id: 'busy' } });
      expect(next.status).to.equal(202);
      const resumed = await api.post(`/api/v1/crawl/${running.body.crawl_id}/resume`, {});
      expect(resumed.status).to.equal(409);
      expect(resumed.body.details).to.include({ tracking_id: 'busy', crawl_id: next.body.crawl_id });
      await waitForCrawl(api, next.body.crawl_id, 60_000);
    } finally {
      state.homeDelayMs = 0;
    }
    const plain = await crawl(api, { enabled: false, include_diff: true });
    expect(plain.done.change_tracking).to.equal(null);
    expect(plain.done.billing.credits_used).to.equal(4);
    for (const page of plain.byPath.values()) expect(page.change_tracking).to.equal(null);
  });
});
