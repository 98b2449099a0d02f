import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { loadPage, type PageLoaderDeps } from '../../../workers/fetching/page-loader.js';
import { stealthProfile } from '../../../workers/fetching/browser-profile.js';
import { createSharedBrowser, type SharedBrowser } from '../../../workers/fetching/chromium.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createWarmPages, warmKey, type WarmPage, type WarmPages } from '../../../workers/fetching/warm-pages.js';
import { createGuardedConnect, type GuardOptions } from '../../../common/ssrf-guard.js';
import type { PageRequest } from '../../../workers/fetching/leased-fetch-work.js';
import type { FetchOutcome } from '../../../workers/fetching/fetch-result.js';
import type { BrowserOptions } from '../../../proto/gen/trawl/v1/work_pb.js';

/**
 * A page that reports what it finds of an earlier visit (the cookie the
 * browser sent and the one scripts see, localStorage, sessionStorage,
 * window.name, how long the tab's history is), then leaves all of them behind
 * for the next visit, as a site's scripts do.
 */
const statePage = (sentCookie: string) => `<!DOCTYPE html><html><head><title>state</title></head><body>
<p id="sent">${sentCookie || 'none'}</p><p id="report"></p>
<script>
const seen = { cookie: document.cookie || 'none', local: localStorage.getItem('k') || 'none', session: sessionStorage.getItem('k') || 'none', name: window.name || 'none', history: history.length };
document.getElementById('report').textContent = JSON.stringify(seen);
document.cookie = 'script=1; path=/';
localStorage.setItem('k', 'left'); sessionStorage.setItem('k', 'left'); window.name = 'left';
</script></body></html>`;

interface Seen {
  sent: string;
  cookie: string;
  local: string;
  session: string;
  name: string;
  history: number;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

describe('warm pages (tabs kept between an account’s tasks on one origin)', function () {
  this.timeout(60_000);
  const guard: GuardOptions = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let proxy: GuardedSocksProxy;
  let site: http.Server;
  let other: http.Server;
  let base: string;
  let otherBase: string;
  let shared: SharedBrowser;
  let ticks = 0;
  let served = 0;
  let warm: WarmPages;
  let deps: PageLoaderDeps;
  const profile = stealthProfile();

  before(async () => {
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(guard) });
    other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>elsewhere</title><p>Another origin</p>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    site = http.createServer((req, res) => {
      if (req.url === '/blocked') return res.writeHead(403, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>Forbidden</title><p>Request blocked.</p>');
      if (req.url === '/data') return res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' }).end(String(++served));
      if (req.url?.startsWith('/reads-data')) {
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!DOCTYPE html><title>data</title><p id="served"></p><script>fetch("/data").then((r) => r.text()).then((t) => { document.getElementById("served").textContent = t; })</script>');
      }
      if (req.url === '/never') return; // never answered
      if (req.url === '/spinning') {
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>spinning</title><p>Busy</p><script>setTimeout(() => { for (;;) {} }, 100)</script>');
      }
      if (req.url === '/tick') {
        ticks++;
        return res.writeHead(204).end();
      }
      if (req.url === '/ticking') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>ticking</title><p>Ticking</p><script>setInterval(() => fetch("/tick"), 40)</script>');
      // 127.0.0.2 is a loopback address outside the guard's allowed 127.0.0.1/32.
      if (req.url === '/inside') return res.writeHead(302, { location: base.replace('127.0.0.1', '127.0.0.2') + '/one' }).end();
      if (req.url === '/away') return res.writeHead(302, { location: `${otherBase}/landing` }).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'server=1; Path=/' }).end(statePage(req.headers.cookie ?? ''));
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    shared = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url, extraArgs: profile.launchArgs });
  });
  beforeEach(() => {
    warm = createWarmPages({ maxIdle: 4, maxUses: 50, idleMs: 30_000 });
    deps = { browser: () => shared.get(), profile, guard, maxBytes: 5_000_000, saveArtifact: () => Promise.reject(new Error('no artifacts here')), warmPages: warm };
  });
  afterEach(() => warm.close());
  after(async () => {
    await shared.close();
    await proxy.close();
    for (const s of [site, other]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  function request(path: string, extra: Partial<PageRequest> = {}, origin = base): PageRequest {
    return {
      url: `${origin}${path}`,
      method: 'GET',
      body: undefined,
      contentType: '',
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      cookies: {},
      acceptMimes: [],
      headers: {},
      followRedirects: true,
      owner: 'account-a',
      ...extra,
    };
  }

  /** A first visit of account-a to the site, and its tab kept. */
  async function keepOne(): Promise<void> {
    seenIn(await loadPage(deps, request('/one'), undefined));
    await until(() => warm.idle() === 1, 'the tab to be kept');
  }

  function seenIn(outcome: FetchOutcome): Seen {
    expect(outcome.kind, outcome.kind === 'failed' ? outcome.message : '').to.equal('ok');
    const html = outcome.kind === 'ok' ? outcome.body.toString('utf8') : '';
    const sent = /<p id="sent">([^<]*)<\/p>/.exec(html)?.[1] ?? '';
    const report = /<p id="report">([^<]*)<\/p>/.exec(html)?.[1] ?? '{}';
    return { sent, ...(JSON.parse(report.replace(/&quot;/g, '"')) as Omit<Seen, 'sent'>) };
  }

  it("reuses the account's tab on the same origin, with nothing left of the last task", async () => {
    const first = seenIn(await loadPage(deps, request('/one'), undefined));
    // A new tab's history holds about:blank and the page; the cookie the page sees is the one its own answer set.
    expect(first).to.deep.equal({ sent: 'none', cookie: 'server=1', local: 'none', session: 'none', name: 'none', history: 2 });
    await until(() => warm.idle() === 1, 'the tab to be kept');

    const second = seenIn(await loadPage(deps, request('/two'), undefined));
    // The same tab (one page longer in history), and a fresh visitor's state.
    expect(second).to.deep.equal({ sent: 'none', cookie: 'server=1', local: 'none', session: 'none', name: 'none', history: 3 });
    await until(() => warm.idle() === 1, 'the tab to be kept again');
  });

  it('gives a task that follows at once the tab still being wiped, not a fresh context', async () => {
    seenIn(await loadPage(deps, request('/one'), undefined));
    // Not waiting for the tab to be kept: its wipe is still under way when the next task asks for it.
    expect(warm.idle()).to.equal(0);
    const next = seenIn(await loadPage(deps, request('/two'), undefined));
    expect(next).to.deep.equal({ sent: 'none', cookie: 'server=1', local: 'none', session: 'none', name: 'none', history: 3 });
    await until(() => warm.idle() === 1, 'the one tab to be kept');
  });

  it("never gives an account another account's tab, nor a tab of another origin", async () => {
    await keepOne();
    expect(seenIn(await loadPage(deps, request('/one', { owner: 'account-b' }), undefined)).history).to.equal(2);
    await until(() => warm.idle() === 2, "the other account's tab to be kept");
    const elsewhere = await loadPage(deps, request('/page', {}, otherBase), undefined);
    expect(elsewhere.kind).to.equal('ok');
    await until(() => warm.idle() === 3, "the other origin's tab to be kept");
    // Each key still finds its own tab.
    // (Another path: loading the same URL again replaces the history entry.)
    expect(seenIn(await loadPage(deps, request('/again'), undefined)).history).to.equal(3);
    expect(seenIn(await loadPage(deps, request('/again', { owner: 'account-b' }), undefined)).history).to.equal(3);
  });

  it('gives a task with cookies, headers or no owner a fresh context, and keeps none of them', async () => {
    await keepOne();
    const withCookies = seenIn(await loadPage(deps, request('/one', { cookies: { mine: 'yes' } }), undefined));
    expect(withCookies.history).to.equal(2);
    expect(withCookies.sent).to.equal('mine=yes');
    expect(seenIn(await loadPage(deps, request('/one', { headers: { 'x-mine': 'yes' } }), undefined)).history).to.equal(2);
    const { owner: _owner, ...ownerless } = request('/one');
    expect(seenIn(await loadPage(deps, ownerless, undefined)).history).to.equal(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(warm.idle()).to.equal(1);
  });

  it('closes the tab when the load fails or ends on another origin', async () => {
    await keepOne();
    const blocked = await loadPage(deps, request('/blocked'), undefined);
    expect(blocked.kind).to.equal('failed');
    expect(warm.idle()).to.equal(0);

    await keepOne();
    const away = await loadPage(deps, request('/away'), undefined);
    expect(away.kind).to.equal('ok');
    expect(away.finalUrl).to.equal(`${otherBase}/landing`);
    await new Promise((r) => setTimeout(r, 300));
    expect(warm.idle()).to.equal(0);
    // The next task on the origin starts afresh.
    expect(seenIn(await loadPage(deps, request('/one'), undefined)).history).to.equal(2);
  });

  it('closes a kept tab whose task is abandoned', async () => {
    await keepOne();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const abandoned = await loadPage(deps, request('/never', { signal: controller.signal }), undefined);
    expect(abandoned.kind).to.equal('failed');
    // Ended by the abort (closing the tab under the load), not by the load's own 20 s timeout.
    if (abandoned.kind === 'failed') expect(abandoned.message).to.contain('abandoned');
    await new Promise((r) => setTimeout(r, 300));
    expect(warm.idle()).to.equal(0);
    expect(seenIn(await loadPage(deps, request('/one'), undefined)).history).to.equal(2);
  });

  it('still refuses a redirect to a private address in a kept tab, and closes the tab', async () => {
    await keepOne();
    const refused = await loadPage(deps, request('/inside'), undefined);
    expect(refused.kind).to.equal('failed');
    if (refused.kind === 'failed') expect(refused.code).to.equal('URL_NOT_ALLOWED');
    expect(warm.idle()).to.equal(0);
  });

  it('fetches what the page loads again rather than from the last task’s cache', async () => {
    const wait = { waitFor: '#served:not(:empty)' } as BrowserOptions;
    const first = await loadPage(deps, request('/reads-data/1'), wait);
    await until(() => warm.idle() === 1, 'the tab to be kept');
    const second = await loadPage(deps, request('/reads-data/2'), wait);
    const servedIn = (o: FetchOutcome) => (o.kind === 'ok' ? /<p id="served">(\d+)/.exec(o.body.toString('utf8'))?.[1] : undefined);
    expect(servedIn(first)).to.match(/^\d+$/);
    expect(Number(servedIn(second))).to.equal(Number(servedIn(first)) + 1);
  });

  it("stops a kept tab's scripts while it waits", async () => {
    expect((await loadPage(deps, request('/ticking'), undefined)).kind).to.equal('ok');
    await until(() => warm.idle() === 1, 'the tab to be kept');
    // The renderer applies the stop on its own schedule, and requests already sent still arrive: on a loaded machine the
    // last ticks may come a little after the tab is kept. They must cease within a few seconds and not resume.
    let seen = ticks;
    const quiet = async () => {
      await new Promise((r) => setTimeout(r, 300));
      const still = ticks === seen;
      seen = ticks;
      return still;
    };
    let stopped = false;
    for (let i = 0; i < 10 && !stopped; i++) stopped = await quiet();
    expect(stopped, 'the kept tab stops ticking').to.equal(true);
    const before = ticks;
    await new Promise((r) => setTimeout(r, 600));
    expect(ticks).to.equal(before);
    // Taken again, it runs the next page's scripts as usual.
    seenIn(await loadPage(deps, request('/one'), undefined));
  });

  describe('the pool', () => {
    async function entry(browser: Browser, owner: string): Promise<WarmPage> {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/one`);
      return { key: warmKey(owner, base), origin: base, context, page, cdp: await context.newCDPSession(page), uses: 1 };
    }

    it('stops waiting for a wipe that does not end (a page spinning its main thread), and closes that tab', async () => {
      const pool = createWarmPages({ maxIdle: 4, maxUses: 50, idleMs: 30_000 });
      const browser = await shared.get();
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/spinning`);
      await new Promise((r) => setTimeout(r, 300));
      const spinning: WarmPage = { key: warmKey('a', base), origin: base, context, page, cdp: await context.newCDPSession(page), uses: 1 };
      const kept = pool.keep(spinning);
      const asked = performance.now();
      expect(await pool.take(spinning.key)).to.equal(undefined);
      // Given up well before the wipe's own limit (2 s), so the task opens a fresh context instead.
      expect(performance.now() - asked).to.be.below(1_500);
      await kept;
      expect(pool.idle()).to.equal(0);
      expect(page.isClosed()).to.equal(true);
      await pool.close();
    });

    it('closes the longest waiting tab past maxIdle, a worn-out tab, and a tab idle too long', async () => {
      const pool = createWarmPages({ maxIdle: 1, maxUses: 2, idleMs: 300 });
      const browser = await shared.get();
      const a = await entry(browser, 'a');
      const b = await entry(browser, 'b');
      await pool.keep(a);
      await pool.keep(b);
      expect(pool.idle()).to.equal(1);
      await until(() => a.page.isClosed(), 'the oldest tab to close');
      expect(await pool.take(warmKey('a', base))).to.equal(undefined);
      const taken = await pool.take(warmKey('b', base));
      expect(taken).to.equal(b);
      // A tab taken again navigates as usual.
      await b.page.goto(`${base}/two`);
      expect(await b.page.title()).to.equal('state');

      b.uses = 2;
      await pool.keep(b);
      expect(pool.idle()).to.equal(0);
      expect(b.page.isClosed()).to.equal(true);

      const c = await entry(browser, 'c');
      await pool.keep(c);
      expect(pool.idle()).to.equal(1);
      await until(() => pool.idle() === 0, 'the idle tab to close');
      await until(() => c.page.isClosed(), 'the idle tab to close');
      await pool.close();
    });
  });
});
