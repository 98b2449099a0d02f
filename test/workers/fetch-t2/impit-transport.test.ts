import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { fetchPage, type FetchConfig } from '../../../workers/fetching/http-fetcher.js';
import { createGuardedConnect, isUrlNotAllowedError } from '../../../common/ssrf-guard.js';
import { createImpitTransport } from '../../../workers/fetch-t2/impit-transport.js';
import { startCountingServer, type CountingServer } from '../../fixtures/counting-server.js';
import { ARTICLE_TITLE, startSiteServer, type SiteServer } from '../../fixtures/site-server.js';
import { GUARDED_TEXT, TIER_ROUTES } from '../../fixtures/tier-pages.js';
import { failed, ok } from '../fetch-t1/outcome.js';

/** Tier 2's client: impit through the guarded SOCKS proxy, redirects and classification by the shared fetcher. */
describe('tier 2: fetchPage over impit', function () {
  this.timeout(30_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let site: SiteServer;
  let trap: CountingServer;
  let proxy: GuardedSocksProxy;
  let config: FetchConfig;

  before(async () => {
    site = await startSiteServer({ routes: TIER_ROUTES });
    trap = await startCountingServer('127.0.0.2', 'internal service');
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(guard) });
    config = {
      guard,
      maxBytes: 10 * 1024 * 1024,
      maxRedirects: 10,
      userAgent: 'TrawlTest/1.0',
      transport: createImpitTransport({ browser: 'chrome', proxyUrl: proxy.url }),
    };
  });
  after(async () => {
    await proxy.close();
    await site.close();
    await trap.close();
  });

  const get = (url: string) => fetchPage({ url, method: 'GET', timeoutMs: 10_000 }, config);

  it("sends a browser's header set in a browser's order: client hints, then the user agent, then fetch metadata and language", async () => {
    let seen: IncomingMessage | undefined;
    const stop = site.onRequest((req) => (seen = req));
    ok(await get(`${site.url}/article`));
    stop();
    const names = seen!.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    for (const name of ['sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'user-agent', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest', 'accept-language']) {
      expect(names, name).to.include(name);
    }
    expect(names.indexOf('sec-ch-ua')).to.be.below(names.indexOf('user-agent'));
    expect(names.indexOf('user-agent')).to.be.below(names.indexOf('sec-fetch-site'));
    expect(seen!.headers['user-agent']).to.match(/Chrome\/\d+/).and.not.contain('TrawlTest');
    expect(seen!.headers['sec-ch-ua']).to.contain('Chromium');
  });

  it('passes the page that refuses clients without client hints, which tier 1 cannot', async () => {
    const page = ok(await get(`${site.url}/tiers/client-hints`));
    expect(page.body).to.contain(GUARDED_TEXT);
    const plain = failed(await fetchPage({ url: `${site.url}/tiers/client-hints`, method: 'GET', timeoutMs: 10_000 }, { ...config, transport: undefined }));
    expect(plain).to.include({ code: 'BLOCKED', escalate: true, statusCode: 403 });
  });

  it('reads a compressed answer once, undone by the client', async () => {
    const page = ok(await get(`${site.url}/gzip`));
    expect(page.body).to.contain(ARTICLE_TITLE);
  });

  it('sends a POST body with its content type', async () => {
    const page = ok(await fetchPage({ url: `${site.url}/post-echo`, method: 'POST', body: '{"tide":"high"}', contentType: 'application/json', timeoutMs: 10_000 }, config));
    expect(JSON.parse(page.body)).to.deep.include({ method: 'POST', contentType: 'application/json', body: '{"tide":"high"}' });
  });

  it('classifies a challenge page like tier 1 does', async () => {
    expect(failed(await get(`${site.url}/challenge/cloudflare`))).to.include({ code: 'CHALLENGE_DETECTED', escalate: true });
  });

  it('refuses a redirect to a private address before connecting', async () => {
    const outcome = failed(await get(`${site.url}/redirect/to?url=${encodeURIComponent(`http://127.0.0.2:${trap.port}/admin`)}`));
    expect(outcome.code).to.equal('URL_NOT_ALLOWED');
    expect(trap.connections()).to.equal(0);
  });

  it('bounds a request by the time left to the fetch, not by impit\'s own 30 s', async () => {
    const transport = createImpitTransport({ browser: 'chrome', proxyUrl: proxy.url });
    const started = Date.now();
    // No signal ends it: only the bound passed with it can.
    const err = await transport
      .send(new URL(`${site.url}/slow?ms=20000`), { method: 'GET', headers: {}, body: undefined, signal: new AbortController().signal, timeoutMs: 500 })
      .then((res) => new Promise((resolve, reject) => res.body.on('end', resolve).on('error', reject).resume()).then(() => null), (e: unknown) => e);
    expect(err, 'the slow page was read whole').to.be.instanceOf(Error);
    expect(Date.now() - started).to.be.below(10_000);
  });

  it('refuses a private target through the proxy even when the URL check is bypassed', async () => {
    const transport = createImpitTransport({ browser: 'chrome', proxyUrl: proxy.url });
    const before = proxy.refused();
    const err = await transport
      .send(new URL(`http://127.0.0.2:${trap.port}/`), { method: 'GET', headers: {}, body: undefined, signal: new AbortController().signal, timeoutMs: 10_000 })
      .then(() => null, (e: unknown) => e);
    expect(isUrlNotAllowedError(err), String(err)).to.equal(true);
    expect(proxy.refused()).to.equal(before + 1);
    expect(trap.connections()).to.equal(0);
  });
});
