import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { loadPage, type PageLoaderDeps } from '../../../workers/fetching/page-loader.js';
import { plainProfile, stealthProfile, type BrowserProfile } from '../../../workers/fetching/browser-profile.js';
import { createSharedBrowser, type SharedBrowser } from '../../../workers/fetching/chromium.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createGuardedConnect, type GuardOptions } from '../../../common/ssrf-guard.js';
import type { PageRequest } from '../../../workers/fetching/leased-fetch-work.js';

/**
 * A page that counts the mouse moves it sees (and those before its load
 * event), and whose last paragraph a
 * script served after a delay writes: read before its load event, it has
 * no such paragraph.
 */
const PAGE = `<!DOCTYPE html><html><head><title>harbour</title></head><body>
<p>Moves: <span id="moves">0</span>, before the load event: <span id="before-load">none</span></p>
<script>let n = 0; addEventListener('mousemove', () => { document.getElementById('moves').textContent = String(++n); });
addEventListener('load', () => { document.getElementById('before-load').textContent = String(n); });</script>
<script src="/late.js"></script>
</body></html>`;

const LATE_SCRIPT = `document.body.insertAdjacentHTML('beforeend', '<p id="late">The late paragraph</p>');`;

describe('the page loader', function () {
  this.timeout(60_000);
  const guard: GuardOptions = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let proxy: GuardedSocksProxy;
  let server: http.Server;
  let base: string;
  const browsers: SharedBrowser[] = [];

  before(async () => {
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(guard) });
    server = http.createServer((req, res) => {
      if (req.url === '/late.js') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/javascript' }).end(LATE_SCRIPT), 600);
        return;
      }
      if (req.url === '/never.js') return; // never answered: the page never loads
      const body = req.url === '/stuck' ? PAGE.replace('/late.js', '/never.js') : PAGE;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const b of browsers) await b.close();
    await proxy.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  function depsFor(profile: BrowserProfile): PageLoaderDeps {
    const shared = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url, extraArgs: profile.launchArgs });
    browsers.push(shared);
    return { browser: () => shared.get(), profile, guard, maxBytes: 5_000_000, saveArtifact: () => Promise.reject(new Error('no artifacts here')) };
  }

  function request(path: string, timeoutMs = 20_000): PageRequest {
    return {
      url: `${base}${path}`,
      method: 'GET',
      body: undefined,
      contentType: '',
      timeoutMs,
      signal: new AbortController().signal,
      cookies: {},
      acceptMimes: [],
      headers: {},
      followRedirects: true,
    };
  }

  async function read(profile: BrowserProfile, path: string, timeoutMs?: number) {
    const outcome = await loadPage(depsFor(profile), request(path, timeoutMs), undefined);
    return { outcome, html: outcome.kind === 'ok' ? outcome.body.toString('utf8') : '' };
  }

  it('moves the mouse of a profile that humanizes while the page loads, and reads the page only once it has loaded', async () => {
    const { outcome, html } = await read(stealthProfile(), '/page');
    expect(outcome.kind).to.equal('ok');
    expect(html).to.contain('The late paragraph');
    const moves = Number(/<span id="moves">(\d+)<\/span>/.exec(html)?.[1]);
    const beforeLoad = Number(/<span id="before-load">(\d+)<\/span>/.exec(html)?.[1]);
    expect(moves).to.be.greaterThan(0);
    // The gestures began while the late script was still on its way, not after the page had loaded.
    expect(beforeLoad).to.be.greaterThan(0);
  });

  it('waits for the load of a profile that does not humanize, without moving the mouse', async () => {
    const { outcome, html } = await read(plainProfile('TrawlTest/1.0'), '/page');
    expect(outcome.kind).to.equal('ok');
    expect(html).to.contain('The late paragraph');
    expect(html).to.contain('<span id="moves">0</span>').and.contain('<span id="before-load">0</span>');
  });

  for (const [name, profile] of [
    ['humanizes', () => stealthProfile()],
    ['does not humanize', () => plainProfile('TrawlTest/1.0')],
  ] as const) {
    it(`fails with TIMEOUT when the page never finishes loading, for a profile that ${name}`, async () => {
      const { outcome } = await read(profile(), '/stuck', 2_000);
      expect(outcome.kind).to.equal('failed');
      if (outcome.kind !== 'failed') return;
      expect(outcome.code).to.equal('TIMEOUT');
      expect(outcome.escalate).to.equal(false);
    });
  }
});
