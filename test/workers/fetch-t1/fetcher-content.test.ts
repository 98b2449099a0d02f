import zlib from 'node:zlib';
import { expect } from 'chai';
import type { Agent } from 'undici';
import { fetchPage, type FetchConfig, type FetchRequest } from '../../../workers/fetching/http-fetcher.js';
import { createGuardedDispatcher } from '../../../common/ssrf-guard.js';
import { failed, ok } from './outcome.js';
import {
  API_JSON,
  ARTICLE_TITLE,
  BOM_SAMPLE,
  CHARSET_SAMPLES,
  META_CHARSET_SAMPLES,
  startSiteServer,
  type SiteServer,
} from '../../fixtures/site-server.js';

describe('fetchPage content', function () {
  this.timeout(30_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let site: SiteServer;
  let dispatcher: Agent;
  let config: FetchConfig;

  before(async () => {
    site = await startSiteServer({
      routes: [
        {
          path: '/empty-gzip',
          handle: ({ res }) => {
            res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': 0 });
            res.end();
          },
        },
        {
          path: '/sitemap.xml.gz',
          handle: ({ res }) => {
            const body = zlib.gzipSync('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/</loc></url></urlset>');
            res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
            res.end(body);
          },
        },
        {
          path: '/zstd',
          handle: ({ res }) => {
            res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'zstd', 'content-length': 4 });
            res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
          },
        },
      ],
    });
    dispatcher = createGuardedDispatcher(guard);
    config = { guard, maxBytes: 10 * 1024 * 1024, maxRedirects: 10, userAgent: 'TrawlTest/1.0 (like a browser)', dispatcher };
  });
  after(async () => {
    await dispatcher.close();
    await site.close();
  });

  const fetchPath = (path: string, extra: Partial<FetchRequest> = {}) =>
    fetchPage({ url: `${site.url}${path}`, method: 'GET', timeoutMs: 10_000, ...extra }, config);

  it('returns an HTML page with its status, type, charset, headers, size and timings', async () => {
    const outcome = ok(await fetchPath('/article'));
    expect(outcome.statusCode).to.equal(200);
    expect(outcome.finalUrl).to.equal(`${site.url}/article`);
    expect(outcome.redirects).to.deep.equal([]);
    expect(outcome.contentType).to.equal('text/html');
    expect(outcome.charset).to.equal('utf-8');
    expect(outcome.body).to.contain(`<h1>${ARTICLE_TITLE}</h1>`);
    expect(outcome.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(outcome.bytes).to.equal(Buffer.byteLength(outcome.body));
    expect(outcome.timings.ttfbMs).to.be.at.least(0);
    expect(outcome.timings.totalMs).to.be.at.least(outcome.timings.ttfbMs);
  });

  it('sends a content type only with a body, or on a POST that names one explicitly', async () => {
    const seen: Array<string | undefined> = [];
    const stop = site.onRequest((req) => seen.push(req.headers['content-type']));
    try {
      ok(await fetchPath('/article', { contentType: 'application/json' }));
      ok(await fetchPath('/post-echo', { method: 'POST', body: 'a=1', contentType: 'application/x-www-form-urlencoded' }));
      ok(await fetchPath('/post-echo', { method: 'POST', contentType: 'text/plain' }));
    } finally {
      stop();
    }
    expect(seen).to.deep.equal([undefined, 'application/x-www-form-urlencoded', 'text/plain']);
  });

  describe('compression', () => {
    it('decodes a gzip body and reports its decoded size', async () => {
      const outcome = ok(await fetchPath('/gzip'));
      expect(outcome.headers['content-encoding']).to.equal('gzip');
      expect(outcome.body).to.contain(ARTICLE_TITLE);
      expect(outcome.bytes).to.be.greaterThan(Number(outcome.headers['content-length']));
    });

    for (const encoding of ['gzip', 'deflate', 'deflate-raw', 'br']) {
      it(`decodes a ${encoding} body`, async () => {
        const outcome = ok(await fetchPath(`/compressed/${encoding}`));
        expect(outcome.body).to.contain(ARTICLE_TITLE);
        expect(outcome.body).to.match(/<\/html>\s*$/);
      });
    }

    it('reads an empty body that declares gzip as empty', async () => {
      const outcome = ok(await fetchPath('/empty-gzip'));
      expect(outcome.body).to.equal('');
      expect(outcome.bytes).to.equal(0);
    });

    it('reports a content encoding it never asked for as NETWORK_ERROR', async () => {
      const outcome = failed(await fetchPath('/zstd'));
      expect(outcome.code).to.equal('NETWORK_ERROR');
      expect(outcome.message).to.contain('"zstd"');
    });

    it('asks for gzip, deflate and br, whatever the caller sets', async () => {
      const outcome = ok(await fetchPath('/post-echo', { headers: { 'Accept-Encoding': 'zstd' } }));
      expect(JSON.parse(outcome.body).headers['accept-encoding']).to.equal('gzip, deflate, br');
    });
  });

  describe('character sets', () => {
    for (const [charset, text] of Object.entries(CHARSET_SAMPLES)) {
      it(`decodes a page declared as ${charset} in the Content-Type`, async () => {
        const outcome = ok(await fetchPath(`/charset/${charset}`));
        expect(outcome.charset).to.equal(charset);
        expect(outcome.body).to.contain(text);
      });
    }

    it('decodes a page whose charset is only in <meta charset>', async () => {
      const outcome = ok(await fetchPath('/charset/meta-only'));
      expect(outcome.charset).to.equal('koi8-r');
      expect(outcome.body).to.contain(META_CHARSET_SAMPLES.metaOnly);
    });

    it('decodes a page whose charset is only in <meta http-equiv>', async () => {
      const outcome = ok(await fetchPath('/charset/meta-http-equiv'));
      expect(outcome.charset).to.equal('gbk');
      expect(outcome.body).to.contain(META_CHARSET_SAMPLES.httpEquiv);
    });

    it('decodes a page by its byte order mark, over its own meta tag', async () => {
      const outcome = ok(await fetchPath('/charset/bom'));
      expect(outcome.charset).to.equal('utf-16le');
      expect(outcome.body).to.contain(BOM_SAMPLE);
      expect(outcome.body.charCodeAt(0)).not.to.equal(0xfeff);
    });
  });

  describe('content types', () => {
    it('returns a JSON API body as text with its media type', async () => {
      const outcome = ok(await fetchPath('/api/json'));
      expect(outcome.contentType).to.equal('application/json');
      expect(JSON.parse(outcome.body)).to.deep.equal(API_JSON);
    });

    it('refuses a PDF as UNSUPPORTED_CONTENT_TYPE', async () => {
      const outcome = failed(await fetchPath('/pdf'));
      expect(outcome.code).to.equal('UNSUPPORTED_CONTENT_TYPE');
      expect(outcome.message).to.contain('application/pdf');
      expect(outcome.escalate).to.equal(false);
      expect(outcome.statusCode).to.equal(200);
    });

    it('refuses an image as UNSUPPORTED_CONTENT_TYPE', async () => {
      const outcome = failed(await fetchPath('/image.png'));
      expect(outcome.code).to.equal('UNSUPPORTED_CONTENT_TYPE');
      expect(outcome.message).to.contain('image/png');
    });

    it('sniffs an untyped HTML body as HTML', async () => {
      const outcome = ok(await fetchPath('/untyped?kind=html'));
      expect(outcome.contentType).to.equal('text/html');
      expect(outcome.body).to.contain(ARTICLE_TITLE);
    });

    it('reads a type it does not read by default when the request accepts it, as it came', async () => {
      expect(failed(await fetchPath('/sitemap.xml.gz')).code).to.equal('UNSUPPORTED_CONTENT_TYPE');
      const outcome = ok(await fetchPath('/sitemap.xml.gz', { acceptMimes: ['application/gzip'] }));
      expect(outcome.contentType).to.equal('application/gzip');
      expect(zlib.gunzipSync(outcome.raw).toString()).to.contain('<loc>https://a.example/</loc>');
      expect(failed(await fetchPath('/pdf', { acceptMimes: ['application/gzip'] })).code).to.equal('UNSUPPORTED_CONTENT_TYPE');
    });

    it('sniffs an untyped PDF body and refuses it', async () => {
      const outcome = failed(await fetchPath('/untyped?kind=pdf'));
      expect(outcome.code).to.equal('UNSUPPORTED_CONTENT_TYPE');
      expect(outcome.message).to.contain('application/pdf');
    });
  });

  describe('methods, bodies and headers', () => {
    it('sends a browser-like set of default headers', async () => {
      const headers = JSON.parse(ok(await fetchPath('/post-echo')).body).headers;
      expect(headers['user-agent']).to.equal('TrawlTest/1.0 (like a browser)');
      expect(headers['accept']).to.match(/^text\/html,application\/xhtml\+xml/);
      expect(headers['accept-language']).to.match(/^en/);
    });

    it('lets caller headers override the defaults, whatever their case', async () => {
      const headers = JSON.parse(ok(await fetchPath('/post-echo', { headers: { 'User-Agent': 'Custom/2.0', Accept: 'application/json', 'X-Api-Key': 'k1' } })).body)
        .headers;
      expect(headers['user-agent']).to.equal('Custom/2.0');
      expect(headers['accept']).to.equal('application/json');
      expect(headers['x-api-key']).to.equal('k1');
    });

    it('does not let a caller set the Host header', async () => {
      const headers = JSON.parse(ok(await fetchPath('/post-echo', { headers: { Host: 'internal.example' } })).body).headers;
      expect(headers['host']).to.equal(`127.0.0.1:${site.port}`);
    });

    it('sends a POST body as application/json by default', async () => {
      const echo = JSON.parse(ok(await fetchPath('/post-echo', { method: 'POST', body: '{"query":"{ items { id } }"}' })).body);
      expect(echo).to.deep.include({ method: 'POST', contentType: 'application/json', body: '{"query":"{ items { id } }"}' });
    });

    it('sends a POST body with the given content type', async () => {
      const echo = JSON.parse(ok(await fetchPath('/post-echo', { method: 'POST', body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' })).body);
      expect(echo).to.deep.include({ method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'a=1&b=2' });
    });

    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      it(`sends ${method} requests with their body`, async () => {
        const echo = JSON.parse(ok(await fetchPath('/post-echo', { method, body: `{"m":"${method}"}` })).body);
        expect(echo.method).to.equal(method);
        expect(echo.body).to.equal(`{"m":"${method}"}`);
      });
    }

    it('accepts a lower-case method and defaults an empty one to GET', async () => {
      expect(JSON.parse(ok(await fetchPath('/post-echo', { method: 'post', body: '{}' })).body).method).to.equal('POST');
      expect(JSON.parse(ok(await fetchPath('/post-echo', { method: '' })).body).method).to.equal('GET');
    });

    it('answers a HEAD request with the headers and an empty body', async () => {
      const outcome = ok(await fetchPath('/article', { method: 'HEAD' }));
      expect(outcome.statusCode).to.equal(200);
      expect(outcome.body).to.equal('');
      expect(Number(outcome.headers['content-length'])).to.be.greaterThan(1000);
      expect(site.hits('/article')).to.be.at.least(1);
    });
  });
});
