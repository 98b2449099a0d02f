import { expect } from 'chai';
import type { Agent } from 'undici';
import { fetchPage, type FetchConfig } from '../../../workers/fetching/http-fetcher.js';
import { createGuardedDispatcher } from '../../../common/ssrf-guard.js';
import { failed, ok } from './outcome.js';
import { ARTICLE_TITLE, startSiteServer, type SiteServer } from '../../fixtures/site-server.js';
import { closedPort } from '../../support/closed-port.js';

const MB = 1024 * 1024;

describe('fetchPage failures', function () {
  this.timeout(60_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let site: SiteServer;
  let dispatcher: Agent;
  let config: FetchConfig;

  before(async () => {
    site = await startSiteServer({
      routes: [
        {
          // A captcha widget as the whole page, served with ?status= (429 and 503 as some sites do).
          path: '/captcha-refusal',
          handle: ({ res, url }) => {
            const widget = url.searchParams.get('widget') === 'turnstile' ? '<div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div>' : '<div class="g-recaptcha" data-sitekey="6Lc-harbour"></div>';
            res.writeHead(Number(url.searchParams.get('status')), { 'content-type': 'text/html; charset=utf-8' });
            res.end(`<!doctype html><html><head><title>One more step</title></head><body><h1>One more step</h1><form method="post">${widget}<button>Continue</button></form></body></html>`);
          },
        },
        {
          // Each hop waits, then redirects onward: no single hop is slow, the chain is.
          path: '/slow-redirect',
          handle: ({ res, url, onClose }) => {
            const n = Number(url.searchParams.get('n') ?? '0');
            const timer = setTimeout(() => {
              res.writeHead(302, { location: n > 0 ? `/slow-redirect?n=${n - 1}` : '/article' });
              res.end();
            }, 200);
            onClose(() => clearTimeout(timer));
          },
        },
      ],
    });
    dispatcher = createGuardedDispatcher(guard);
    config = { guard, maxBytes: 10 * MB, maxRedirects: 10, userAgent: 'TrawlTest/1.0', dispatcher };
  });
  after(async () => {
    await dispatcher.close();
    await site.close();
  });

  const get = (url: string, timeoutMs = 10_000, overrides: Partial<FetchConfig> = {}) =>
    fetchPage({ url, method: 'GET', timeoutMs }, { ...config, ...overrides });

  describe('timeouts', () => {
    it('times out a server that waits before sending headers', async () => {
      const started = Date.now();
      const outcome = failed(await get(`${site.url}/slow?ms=5000`, 300));
      expect(outcome.code).to.equal('TIMEOUT');
      expect(outcome.statusCode).to.equal(undefined);
      expect(Date.now() - started).to.be.below(3_000);
    });

    it('times out a body that stalls after the headers', async () => {
      const started = Date.now();
      const outcome = failed(await get(`${site.url}/slow?ms=5000&mode=mid-body`, 300));
      expect(outcome.code).to.equal('TIMEOUT');
      expect(outcome.statusCode).to.equal(200);
      expect(Date.now() - started).to.be.below(3_000);
    });

    it('ends at once when the caller aborts, before its own timeout', async () => {
      const started = Date.now();
      const abandon = new AbortController();
      setTimeout(() => abandon.abort(), 200);
      const outcome = failed(await fetchPage({ url: `${site.url}/slow?ms=5000`, method: 'GET', timeoutMs: 10_000, signal: abandon.signal }, config));
      expect(outcome.code).to.equal('TIMEOUT');
      expect(Date.now() - started).to.be.below(3_000);
      const already = AbortSignal.abort();
      expect(failed(await fetchPage({ url: `${site.url}/article`, method: 'GET', timeoutMs: 10_000, signal: already }, config)).code).to.equal('TIMEOUT');
    });

    it('times out a server that never answers', async () => {
      const outcome = failed(await get(`${site.url}/hang`, 300));
      expect(outcome.code).to.equal('TIMEOUT');
      expect(outcome.message).to.contain('300 ms');
    });

    it('bounds the whole redirect chain, not each hop', async () => {
      const outcome = failed(await get(`${site.url}/slow-redirect?n=5`, 500));
      expect(outcome.code).to.equal('TIMEOUT');
      expect(site.hits('/slow-redirect')).to.be.at.least(2);
    });

    it('lets a slow page finish inside its timeout', async () => {
      const outcome = ok(await get(`${site.url}/slow?ms=200&mode=mid-body`, 5_000));
      expect(outcome.body).to.contain(ARTICLE_TITLE);
      expect(outcome.timings.ttfbMs).to.be.at.most(outcome.timings.totalMs);
    });
  });

  describe('network errors', () => {
    it('reports a refused connection on a closed port', async () => {
      const port = await closedPort();
      const outcome = failed(await get(`http://127.0.0.1:${port}/`));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.match(/refused/);
      expect(outcome.escalate).to.equal(false);
    });

    it('reports a connection reset mid-response', async () => {
      const outcome = failed(await get(`${site.url}/reset`));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.match(/reset or closed/);
      expect(outcome.statusCode).to.equal(200);
      expect(outcome.escalate).to.equal(true);
    });

    it('reports a name that does not resolve as a DNS failure', async () => {
      const outcome = failed(await get('http://nonexistent.invalid/'));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.match(/DNS lookup failed for nonexistent\.invalid/);
      expect(outcome.escalate).to.equal(false);
    });

    it('reports a TLS handshake failure (https to a plain HTTP port)', async () => {
      const outcome = failed(await get(`https://127.0.0.1:${site.port}/`));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.match(/TLS/);
    });

    it('reports a body that claims gzip but is not', async () => {
      const outcome = failed(await get(`${site.url}/corrupt-gzip`));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.match(/cannot be decoded/);
    });
  });

  describe('status classification', () => {
    const cases: Array<[string, string, string, boolean, number]> = [
      ['404', '/status/404', 'TARGET_NOT_FOUND', false, 404],
      ['410', '/status/410', 'TARGET_NOT_FOUND', false, 410],
      ['401 login wall', '/login-required', 'REQUIRES_AUTH', false, 401],
      ['plain 403', '/status/403', 'BLOCKED', true, 403],
      ['429', '/status/429', 'BLOCKED', true, 429],
      ['500', '/status/500', 'TARGET_UNAVAILABLE', true, 500],
      ['502', '/status/502', 'TARGET_UNAVAILABLE', true, 502],
      ['plain 503', '/status/503', 'TARGET_UNAVAILABLE', true, 503],
      ['503 with a bot block page', '/blocked/503', 'BLOCKED', true, 503],
      ['Cloudflare challenge (403)', '/challenge/cloudflare', 'CHALLENGE_DETECTED', true, 403],
      ['Cloudflare challenge served with 503', '/challenge/cloudflare?status=503', 'CHALLENGE_DETECTED', true, 503],
      ['Cloudflare challenge served with 200', '/challenge/cloudflare?status=200', 'CHALLENGE_DETECTED', true, 200],
      ['DataDome', '/challenge/datadome', 'CHALLENGE_DETECTED', true, 403],
      ['PerimeterX', '/challenge/perimeterx', 'CHALLENGE_DETECTED', true, 403],
      ['Imperva Incapsula', '/challenge/incapsula', 'CHALLENGE_DETECTED', true, 403],
      ['Akamai Access Denied', '/challenge/akamai', 'CHALLENGE_DETECTED', true, 403],
      ['DataDome served with 200', '/challenge/datadome?status=200', 'CHALLENGE_DETECTED', true, 200],
    ];
    for (const [what, path, code, escalate, status] of cases) {
      it(`classifies ${what} as ${code}`, async () => {
        const outcome = failed(await get(`${site.url}${path}`));
        expect(outcome.code).to.equal(code);
        expect(outcome.escalate).to.equal(escalate);
        expect(outcome.statusCode).to.equal(status);
        expect(outcome.finalUrl).to.equal(`${site.url}${path}`);
      });
    }

    for (const [status, widget] of [[429, 'turnstile'], [503, 'recaptcha'], [403, 'turnstile']] as const) {
      it(`classifies a ${widget} captcha page served with ${status} as a captcha, to escalate to the captcha tier`, async () => {
        const outcome = failed(await get(`${site.url}/captcha-refusal?status=${status}&widget=${widget}`));
        expect(outcome).to.deep.include({ code: 'CHALLENGE_DETECTED', classification: 'captcha', escalate: true, statusCode: status });
      });
    }

    it('keeps a 429 or 503 without a captcha widget a rate limit or an outage, not a captcha', async () => {
      for (const [path, code] of [['/status/429', 'BLOCKED'], ['/status/503', 'TARGET_UNAVAILABLE'], ['/blocked/503', 'BLOCKED']] as const) {
        const outcome = failed(await get(`${site.url}${path}`));
        expect(outcome.code, path).to.equal(code);
        expect(outcome.classification, path).to.equal(undefined);
      }
    });

    it('names the vendor of a recognised challenge', async () => {
      expect(failed(await get(`${site.url}/challenge/akamai`)).message).to.contain('Akamai');
      expect(failed(await get(`${site.url}/challenge/perimeterx`)).message).to.contain('PerimeterX');
    });

    it('does not mistake a page that merely loads protection scripts for a challenge', async () => {
      const outcome = ok(await get(`${site.url}/protected-article`));
      expect(outcome.body).to.contain(ARTICLE_TITLE);
    });

    for (const status of [200, 201, 400, 418]) {
      it(`answers ${status} as ok with the status code`, async () => {
        const outcome = ok(await get(`${site.url}/status/${status}`));
        expect(outcome.statusCode).to.equal(status);
        expect(outcome.body).to.contain(`status ${status}`);
      });
    }

    it('answers 204 as ok with an empty body', async () => {
      const outcome = ok(await get(`${site.url}/status/204`));
      expect(outcome.statusCode).to.equal(204);
      expect(outcome.body).to.equal('');
      expect(outcome.bytes).to.equal(0);
    });
  });

  describe('size cap', () => {
    it('refuses a declared Content-Length over the cap without reading the body', async () => {
      const outcome = failed(await get(`${site.url}/huge-declared`));
      expect(outcome.code).to.equal('CONTENT_TOO_LARGE');
      expect(outcome.message).to.match(/declares \d+ bytes/);
      expect(outcome.bytes).to.equal(undefined);
      expect(outcome.escalate).to.equal(false);
    });

    it('stops a streamed body without a length once it passes the cap', async () => {
      const outcome = failed(await get(`${site.url}/huge?mb=11`));
      expect(outcome.code).to.equal('CONTENT_TOO_LARGE');
      expect(outcome.statusCode).to.equal(200);
    });

    it('stops an endless stream at the cap instead of reading it all', async () => {
      const outcome = failed(await get(`${site.url}/huge?mb=2000`, 30_000));
      expect(outcome.code).to.equal('CONTENT_TOO_LARGE');
    });

    it('applies a smaller configured cap to a streamed body', async () => {
      const outcome = failed(await get(`${site.url}/huge?mb=1`, 10_000, { maxBytes: 256 * 1024 }));
      expect(outcome.code).to.equal('CONTENT_TOO_LARGE');
      expect(outcome.message).to.contain(String(256 * 1024));
    });

    it('counts decompressed bytes: a small gzip body that inflates past the cap is refused', async () => {
      const outcome = failed(await get(`${site.url}/gzip-bomb?mb=20`));
      expect(outcome.code).to.equal('CONTENT_TOO_LARGE');
    });

    it('accepts a body under the cap', async () => {
      const outcome = ok(await get(`${site.url}/huge?mb=1`));
      expect(outcome.bytes).to.be.greaterThan(MB);
      expect(outcome.bytes).to.be.below(MB + 4096);
      expect(outcome.body.length).to.equal(outcome.bytes);
    });

    it('accepts a body exactly at the cap', async () => {
      const outcome = ok(await get(`${site.url}/huge-declared?mb=1`, 10_000, { maxBytes: MB }));
      expect(outcome.bytes).to.equal(MB);
    });
  });

  it('creates and closes its own guarded dispatcher when none is given', async () => {
    const { dispatcher: _shared, ...withoutDispatcher } = config;
    expect(ok(await fetchPage({ url: `${site.url}/article`, method: 'GET', timeoutMs: 5_000 }, withoutDispatcher)).statusCode).to.equal(200);
    expect(failed(await fetchPage({ url: 'http://127.0.0.2/', method: 'GET', timeoutMs: 5_000 }, withoutDispatcher)).code).to.equal('URL_NOT_ALLOWED');
  });
});
