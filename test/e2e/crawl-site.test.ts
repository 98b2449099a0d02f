import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { reachableHtmlPages, startStaticSiteServer, unpackSite, type StaticSiteServer } from '../fixtures/static-site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { crawlResults, waitForCrawl } from './crawl-support.js';

const SITE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data/sites/rust-by-example.tar.gz');

describe('crawl of a real site (rust-by-example, end to end)', function () {
  this.timeout(240_000);
  let stack: TestStack;
  let site: StaticSiteServer;
  let expected: Set<string>;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    site = await startStaticSiteServer(unpackSite(SITE, 'crawl-rbe'), { removeOnClose: true });
    expected = reachableHtmlPages(site.root);
    account = await createTestAccount(stack, 10_000_000);
  });
  after(() => site.close());

  const api = () => apiClient(stack.baseUrl, account.key);

  /** The completed pages of a crawl that are HTML files of the site, and every URL of its results. */
  async function crawled(crawlId: string) {
    const pages = await crawlResults(api(), crawlId);
    const urls = pages.map((p) => p.url);
    const html = pages.filter((p) => p.status === 'completed' && new URL(p.url).pathname.endsWith('.html')).map((p) => new URL(p.url).pathname);
    return { pages, urls, html };
  }

  it('finds all 193 reachable pages exactly once, fetches each once (and once more per retry), and charges each once', async () => {
    expect(expected.size).to.equal(193);
    site.hits.clear();
    const before = await balanceOf(stack.pool, account.accountId);
    const start = await api().post('/api/v1/crawl', { url: `${site.origin}/index.html`, max_depth: 20, max_pages: 1000 });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    const done = await waitForCrawl(api(), start.body.crawl_id, 120_000);
    const { pages, urls, html } = await crawled(start.body.crawl_id);
    expect(new Set(urls).size).to.equal(urls.length);
    expect(new Set(html)).to.deep.equal(expected);
    expect(html).to.have.length(193);
    // Fetched once each, plus once more for a page retried after a passing failure (a pipeline timeout on a loaded machine).
    const retries = await stack.pool.query<{ url: string; retries: number }>('SELECT url, retries FROM crawl_pages WHERE crawl_id = $1', [start.body.crawl_id]);
    const retried = new Map(retries.rows.map((r) => [new URL(r.url).pathname, r.retries]));
    for (const file of expected) expect(site.hits.get(file), file).to.equal(1 + (retried.get(file) ?? 0));
    const completed = pages.filter((p) => p.status === 'completed').length;
    expect(done.completed).to.equal(completed);
    expect(done.billing.credits_used).to.equal(completed);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - completed * 200);
  });

  it('finishes with every page once and billing exact when a crawl worker and the control plane are killed mid-way', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const start = await api().post('/api/v1/crawl', { url: `${site.origin}/index.html`, max_depth: 20, max_pages: 1000 });
    expect(start.status).to.equal(202);
    const id = start.body.crawl_id;
    for (;;) {
      const status = (await api().get(`/api/v1/crawl/${id}`)).body;
      expect(['discovering', 'scraping']).to.include(status.status);
      if (status.completed >= 10) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await stack.kill('crawl', 'SIGKILL');
    await stack.kill('control-plane', 'SIGKILL');
    await stack.start('control-plane');
    await stack.start('crawl');
    const done = await waitForCrawl(api(), id, 200_000);
    const { pages, urls, html } = await crawled(id);
    expect(new Set(urls).size).to.equal(urls.length);
    expect(new Set(html)).to.deep.equal(expected);
    const completed = pages.filter((p) => p.status === 'completed').length;
    expect(done.completed).to.equal(completed);
    expect(done.billing.credits_used).to.equal(completed);
    expect(done.billing.credits_refunded).to.equal(done.billing.credits_debited - completed);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - completed * 200);
    const ledger = await stack.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ledger_entries WHERE reference LIKE $1`, [`crawl:${id}:%`]);
    expect(Number(ledger.rows[0]!.n)).to.equal(2);
  });
});
