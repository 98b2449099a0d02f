import diagnosticsChannel from 'node:diagnostics_channel';
import { expect } from 'chai';
import type { Agent } from 'undici';
import { fetchPage, type FetchConfig } from '../../../workers/fetching/http-fetcher.js';
import { createGuardedDispatcher } from '../../../common/ssrf-guard.js';
import { failed, ok } from './outcome.js';
import { startCountingServer } from '../../fixtures/counting-server.js';
import { ARTICLE_TITLE, startSiteServer, type SiteServer } from '../../fixtures/site-server.js';

/** A server bound to an address the guard refuses, counting every TCP connection that reaches it. */
const trap = (host: string) => startCountingServer(host, 'internal service');

describe('fetchPage redirects', function () {
  this.timeout(30_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let site: SiteServer;
  let other: SiteServer;
  let dispatcher: Agent;
  let config: FetchConfig;

  before(async () => {
    site = await startSiteServer();
    other = await startSiteServer();
    dispatcher = createGuardedDispatcher(guard);
    config = { guard, maxBytes: 10 * 1024 * 1024, maxRedirects: 10, userAgent: 'TrawlTest/1.0', dispatcher };
  });
  after(async () => {
    await dispatcher.close();
    await site.close();
    await other.close();
  });

  const get = (url: string, extra: Partial<Parameters<typeof fetchPage>[0]> = {}) => fetchPage({ url, method: 'GET', timeoutMs: 10_000, ...extra }, config);

  it('follows a chain of redirects with relative and absolute Locations to the final page', async () => {
    const outcome = ok(await get(`${site.url}/redirect/chain?n=4`));
    expect(outcome.statusCode).to.equal(200);
    expect(outcome.finalUrl).to.equal(`${site.url}/article`);
    expect(outcome.redirects).to.deep.equal([
      `${site.url}/redirect/chain?n=4`,
      `${site.url}/redirect/chain?n=3&status=302`,
      `${site.url}/redirect/chain?n=2&status=302`,
      `${site.url}/redirect/chain?n=1&status=302`,
    ]);
    expect(outcome.body).to.contain(ARTICLE_TITLE);
  });

  for (const status of [301, 307, 308]) {
    it(`follows ${status} redirects`, async () => {
      const outcome = ok(await get(`${site.url}/redirect/chain?n=2&status=${status}`));
      expect(outcome.finalUrl).to.equal(`${site.url}/article`);
      expect(outcome.redirects).to.have.length(2);
    });
  }

  it('reports a redirect loop as NETWORK_ERROR', async () => {
    const outcome = failed(await get(`${site.url}/redirect/loop`));
    expect(outcome.code).to.equal('NETWORK_ERROR');
    expect(outcome.message).to.match(/loop/);
    expect(outcome.escalate).to.equal(false);
    expect(site.hits('/redirect/loop')).to.be.at.most(3);
  });

  it('gives up after maxRedirects with NETWORK_ERROR', async () => {
    const outcome = failed(await fetchPage({ url: `${site.url}/redirect/chain?n=5`, method: 'GET', timeoutMs: 10_000 }, { ...config, maxRedirects: 3 }));
    expect(outcome.code).to.equal('NETWORK_ERROR');
    expect(outcome.message).to.contain('more than 3 times');
  });

  it('follows exactly maxRedirects redirects', async () => {
    const outcome = ok(await fetchPage({ url: `${site.url}/redirect/chain?n=3`, method: 'GET', timeoutMs: 10_000 }, { ...config, maxRedirects: 3 }));
    expect(outcome.redirects).to.have.length(3);
  });

  it('turns a POST into a GET without a body on 303', async () => {
    const outcome = ok(
      await get(`${site.url}/redirect/to?status=303&url=${encodeURIComponent('/post-echo')}`, { method: 'POST', body: '{"a":1}' }),
    );
    const echo = JSON.parse(outcome.body);
    expect(echo.method).to.equal('GET');
    expect(echo.body).to.equal('');
    expect(echo.contentType).to.equal(null);
  });

  it('turns a POST into a GET on 302, as browsers do', async () => {
    const outcome = ok(await get(`${site.url}/redirect/to?status=302&url=${encodeURIComponent('/post-echo')}`, { method: 'POST', body: 'x' }));
    expect(JSON.parse(outcome.body).method).to.equal('GET');
  });

  for (const status of [307, 308]) {
    it(`repeats a POST with its body and content type on ${status}`, async () => {
      const outcome = ok(
        await get(`${site.url}/redirect/to?status=${status}&url=${encodeURIComponent('/post-echo')}`, {
          method: 'POST',
          body: 'q=tides',
          contentType: 'application/x-www-form-urlencoded',
        }),
      );
      const echo = JSON.parse(outcome.body);
      expect(echo.method).to.equal('POST');
      expect(echo.body).to.equal('q=tides');
      expect(echo.contentType).to.equal('application/x-www-form-urlencoded');
    });
  }

  it('turns a PUT into a GET on 303', async () => {
    const outcome = ok(await get(`${site.url}/redirect/to?status=303&url=${encodeURIComponent('/post-echo')}`, { method: 'PUT', body: '{}' }));
    expect(JSON.parse(outcome.body).method).to.equal('GET');
  });

  it('drops credentials when a redirect leaves the origin, and keeps other headers', async () => {
    const target = `${other.url}/post-echo`;
    const outcome = ok(
      await get(`${site.url}/redirect/to?url=${encodeURIComponent(target)}`, {
        headers: { Authorization: 'Bearer secret', Cookie: 'session=1', 'X-Trace': 'abc' },
      }),
    );
    const echo = JSON.parse(outcome.body);
    expect(outcome.finalUrl).to.equal(target);
    expect(echo.headers).not.to.have.property('authorization');
    expect(echo.headers).not.to.have.property('cookie');
    expect(echo.headers['x-trace']).to.equal('abc');
  });

  it('keeps credentials on a same-origin redirect', async () => {
    const outcome = ok(await get(`${site.url}/redirect/to?url=/post-echo`, { headers: { Authorization: 'Bearer secret' } }));
    expect(JSON.parse(outcome.body).headers.authorization).to.equal('Bearer secret');
  });

  it('refuses a Location with a non-http scheme', async () => {
    const outcome = failed(await get(`${site.url}/redirect/to?url=${encodeURIComponent('file:///etc/passwd')}`));
    expect(outcome.code).to.equal('URL_NOT_ALLOWED');
  });

  describe('redirects to internal addresses are refused before any connection', () => {
    const attempted: string[] = [];
    const onConnect = (message: unknown) => {
      const { connectParams } = message as { connectParams: { hostname: string } };
      attempted.push(connectParams.hostname);
    };
    before(() => diagnosticsChannel.subscribe('undici:client:beforeConnect', onConnect));
    after(() => diagnosticsChannel.unsubscribe('undici:client:beforeConnect', onConnect));
    beforeEach(() => (attempted.length = 0));

    it('records the connections the fetcher opens (the probe the tests below rely on)', async () => {
      const fresh = createGuardedDispatcher(guard);
      try {
        ok(await fetchPage({ url: `${site.url}/article`, method: 'GET', timeoutMs: 10_000 }, { ...config, dispatcher: fresh }));
        expect(attempted).to.include('127.0.0.1');
      } finally {
        await fresh.close();
      }
    });

    it('refuses a redirect to another loopback address (127.0.0.2), which never sees a connection', async () => {
      const internal = await trap('127.0.0.2');
      try {
        const outcome = failed(await get(`${site.url}/redirect/to?url=${encodeURIComponent(`http://127.0.0.2:${internal.port}/admin`)}`));
        expect(outcome.code).to.equal('URL_NOT_ALLOWED');
        expect(outcome.escalate).to.equal(false);
        expect(outcome.finalUrl).to.equal(`http://127.0.0.2:${internal.port}/admin`);
        expect(internal.connections()).to.equal(0);
        expect(attempted).not.to.include('127.0.0.2');
      } finally {
        await internal.close();
      }
    });

    it('refuses a redirect to IPv6 loopback ([::1]), which never sees a connection', async () => {
      const internal = await trap('::1');
      try {
        const outcome = failed(await get(`${site.url}/redirect/to?url=${encodeURIComponent(`http://[::1]:${internal.port}/`)}`));
        expect(outcome.code).to.equal('URL_NOT_ALLOWED');
        expect(internal.connections()).to.equal(0);
        expect(attempted).not.to.include('::1');
      } finally {
        await internal.close();
      }
    });

    for (const target of [
      'http://10.0.0.1/admin',
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://localhost/',
    ]) {
      it(`refuses a redirect to ${target} without attempting a connection`, async () => {
        const outcome = failed(await get(`${site.url}/redirect/to?url=${encodeURIComponent(target)}`));
        expect(outcome.code).to.equal('URL_NOT_ALLOWED');
        expect(outcome.statusCode).to.equal(302);
        expect(attempted.filter((host) => host !== '127.0.0.1')).to.deep.equal([]);
      });
    }

    it('refuses, at connect time, a redirect to a name that resolves to a refused address', async () => {
      const rebinding = createGuardedDispatcher(guard, {
        resolve: async (hostname) => [{ address: hostname === 'internal.example' ? '127.0.0.2' : '127.0.0.1', family: 4 }],
      });
      const internal = await trap('127.0.0.2');
      try {
        const outcome = failed(
          await fetchPage(
            { url: `${site.url}/redirect/to?url=${encodeURIComponent(`http://internal.example:${internal.port}/`)}`, method: 'GET', timeoutMs: 10_000 },
            { ...config, dispatcher: rebinding },
          ),
        );
        expect(outcome.code).to.equal('URL_NOT_ALLOWED');
        expect(outcome.message).to.contain('internal.example').and.not.contain('127.0.0.2');
        expect(internal.connections()).to.equal(0);
      } finally {
        await internal.close();
        await rebinding.close();
      }
    });
  });

  it('refuses the starting URL itself when it is internal', async () => {
    const outcome = failed(await get('http://[0:0:0:0:0:ffff:7f00:2]/'));
    expect(outcome.code).to.equal('URL_NOT_ALLOWED');
  });

  it('refuses a URL that does not parse', async () => {
    const outcome = failed(await get('not a url'));
    expect(outcome.code).to.equal('URL_NOT_ALLOWED');
  });
});
