import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { parseSitemap, SITEMAP_LIMITS } from '../../../workers/discovery/sitemap-parser.js';

const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/sitemaps');
const read = (file: string) => readFileSync(path.join(DATA, file));

async function* inChunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function urlset(entries: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</urlset>`;
}

describe('discovery/sitemap parser', () => {
  describe('the shared sitemap files', () => {
    it('reads every URL of the urlset with its lastmod', async () => {
      const result = await parseSitemap(read('sitemap.xml'), { url: 'https://www.sitemaps.org/sitemap.xml' });
      expect(result.kind).to.equal('urlset');
      expect(result.urls).to.have.length(84);
      expect(result.urls[0]).to.deep.equal({
        url: 'https://www.sitemaps.org/',
        lastmod: '2016-11-21',
        changefreq: null,
        priority: null,
        alternates: [],
        title: null,
      });
      expect(result.urls.at(-1)!.url).to.equal('https://www.sitemaps.org/zh_TW/terms.html');
      expect(result).to.include({ truncated: null, error: null, invalidUrls: 0 });
    });

    it('reads the gzipped urlset to the same entries', async () => {
      const plain = await parseSitemap(read('sitemap.xml'));
      const gzipped = await parseSitemap(read('sitemap.xml.gz'), { url: 'https://www.sitemaps.org/sitemap.xml.gz' });
      expect(gzipped.urls).to.deep.equal(plain.urls);
      expect(gzipped.bytes).to.equal(read('sitemap.xml').length);
    });

    it('reads the sitemap index, CDATA locations included', async () => {
      const result = await parseSitemap(read('sitemap2.xml'));
      expect(result.kind).to.equal('sitemapindex');
      expect(result.urls).to.deep.equal([]);
      expect(result.sitemaps).to.deep.equal([
        { url: 'http://www.example.com/sitemap1.xml.gz', lastmod: '2004-10-01T18:23:17+00:00' },
        { url: 'http://www.example.com/sitemap2.xml.gz', lastmod: '2005-01-01' },
      ]);
    });

    it('keeps hreflang alternates and reads a sitemap entry mixed into a urlset', async () => {
      const result = await parseSitemap(read('sitemap-hreflang.xml'));
      expect(result.urls.map((u) => u.url)).to.deep.equal([
        'http://www.example.com/english/page.html',
        'http://www.example.com/deutsch/page.html',
        'http://www.example.com/schweiz-deutsch/page.html',
      ]);
      expect(result.urls[1]!.alternates).to.deep.equal([
        { hreflang: 'de', url: 'http://www.example.com/deutsch/page.html' },
        { hreflang: 'de-ch', url: 'http://www.example.com/schweiz-deutsch/page.html' },
        { hreflang: 'en', url: 'http://www.example.com/english/page.html' },
      ]);
      expect(result.sitemaps).to.deep.equal([{ url: 'http://www.example.com/sitemap2.xml.gz', lastmod: null }]);
    });

    it('reads JSON Feed items with title and date', async () => {
      const result = await parseSitemap(read('feed.json'));
      expect(result.kind).to.equal('json-feed');
      expect(result.urls).to.have.length(25);
      expect(result.urls[0]!.title).to.equal('Keller Rinaudo: How can delivery drones save lives?');
      expect(result.urls[0]!.lastmod).to.equal('2021-10-29T11:59:00-04:00');
      expect(result.urls.every((u) => u.url.startsWith('https://www.npr.org/'))).to.equal(true);
    });

    it('reads Atom entries by their alternate link, skipping an entry with only a self link', async () => {
      const result = await parseSitemap(read('feed1.atom'));
      expect(result.kind).to.equal('atom');
      expect(result.urls).to.deep.equal([
        {
          url: 'http://example.org/2003/12/13/atom03',
          lastmod: '2003-12-13T18:30:02Z',
          changefreq: null,
          priority: null,
          alternates: [],
          title: 'Atom-Powered Robots Run Amok',
        },
      ]);
    });

    it('reads RSS items, not the channel link', async () => {
      const result = await parseSitemap(read('feed2.rss'));
      expect(result.kind).to.equal('rss');
      expect(result.urls.map((u) => [u.url, u.title, u.lastmod])).to.deep.equal([
        ['http://www.example.com/blog/post/1', 'Example entry', 'Sun, 06 Sep 2009 16:20:00 +0000'],
      ]);
    });
  });

  describe('input forms', () => {
    it('gives the same result for a stream of small chunks as for the whole file', async () => {
      for (const file of ['sitemap.xml', 'sitemap.xml.gz', 'sitemap-hreflang.xml', 'feed.json']) {
        const whole = await parseSitemap(read(file));
        const streamed = await parseSitemap(inChunks(read(file), 7));
        expect(streamed, file).to.deep.equal(whole);
      }
    });

    it('recognises gzip by its magic bytes whatever the name, and plain XML named .gz', async () => {
      const xml = urlset(['<url><loc>https://s.test/a</loc></url>']);
      const fromGzip = await parseSitemap(gzipSync(xml), { url: 'https://s.test/sitemap.xml' });
      const fromPlain = await parseSitemap(Buffer.from(xml), { url: 'https://s.test/sitemap.xml.gz' });
      expect(fromGzip.urls.map((u) => u.url)).to.deep.equal(['https://s.test/a']);
      expect(fromPlain.urls.map((u) => u.url)).to.deep.equal(['https://s.test/a']);
    });

    it('reads a plain-text sitemap, one URL a line, skipping what is not an http(s) URL', async () => {
      const result = await parseSitemap(Buffer.from('\ufeffhttps://s.test/a\r\n\nhttps://s.test/b?x=1&y=2\nmailto:x@s.test\nnot a url\n'));
      expect(result.kind).to.equal('text');
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/a', 'https://s.test/b?x=1&y=2']);
      expect(result.invalidUrls).to.equal(2);
    });
  });

  describe('fields', () => {
    it('keeps changefreq and priority, and drops invalid values', async () => {
      const result = await parseSitemap(
        Buffer.from(
          urlset([
            '<url><loc>https://s.test/a</loc><lastmod> 2024-01-02T03:04:05Z </lastmod><changefreq>Weekly</changefreq><priority>0.8</priority></url>',
            '<url><loc>https://s.test/b</loc><changefreq>sometimes</changefreq><priority>1.5</priority></url>',
          ]),
        ),
      );
      expect(result.urls.map((u) => [u.lastmod, u.changefreq, u.priority])).to.deep.equal([
        ['2024-01-02T03:04:05Z', 'weekly', 0.8],
        [null, null, null],
      ]);
    });

    it('never takes the location of a nested image or video element for the page', async () => {
      const result = await parseSitemap(
        Buffer.from(
          urlset([
            '<url><image:image><image:loc>https://cdn.test/i.png</image:loc></image:image><loc>https://s.test/page</loc></url>',
          ]),
        ),
      );
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/page']);
    });

    it('decodes entities, resolves relative locations against the file URL and counts invalid and empty ones', async () => {
      const result = await parseSitemap(
        Buffer.from(urlset(['<url><loc>https://s.test/?a=1&amp;b=2</loc></url>', '<url><loc>/rel</loc></url>', '<url><loc>javascript:x()</loc></url>', '<url><loc></loc></url>'])),
        { url: 'https://s.test/sitemaps/one.xml' },
      );
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/?a=1&b=2', 'https://s.test/rel']);
      expect(result.invalidUrls).to.equal(2);
    });

    it('skips URLs longer than the URL length limit', async () => {
      const long = `https://s.test/${'a'.repeat(SITEMAP_LIMITS.maxUrlLength)}`;
      const result = await parseSitemap(Buffer.from(urlset([`<url><loc>${long}</loc></url>`, '<url><loc>https://s.test/ok</loc></url>'])));
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/ok']);
      expect(result.invalidUrls).to.equal(1);
    });
  });

  describe('limits', () => {
    it('stops at the URL limit and says so', async () => {
      const entries = Array.from({ length: 30 }, (_, i) => `<url><loc>https://s.test/${i}</loc></url>`);
      const result = await parseSitemap(Buffer.from(urlset(entries)), { limits: { maxUrls: 10 } });
      expect(result.urls).to.have.length(10);
      expect(result.urls.at(-1)!.url).to.equal('https://s.test/9');
      expect(result.truncated).to.equal('max-urls');
    });

    it('holds the protocol limits by default', () => {
      expect(SITEMAP_LIMITS.maxUrls).to.equal(50_000);
      expect(SITEMAP_LIMITS.maxBytes).to.equal(50 * 1024 * 1024);
    });

    it('stops decompressing a gzip bomb at the byte limit, keeping the entries read before it', async () => {
      const head = '<urlset><url><loc>https://s.test/first</loc></url><url><loc>https://s.test/';
      const bomb = gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024 * 1024, 0x61)]));
      expect(bomb.length).to.be.below(200_000);
      const started = Date.now();
      const result = await parseSitemap(inChunks(bomb, 16 * 1024), { limits: { maxBytes: 1024 * 1024 } });
      expect(result.truncated).to.equal('max-bytes');
      expect(result.bytes).to.equal(1024 * 1024);
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/first']);
      expect(Date.now() - started).to.be.below(5_000);
    });

    it('drops the cut-off last line of a text sitemap stopped at the byte limit', async () => {
      const text = 'https://s.test/one\nhttps://s.test/two\nhttps://s.test/three-is-long\n';
      const result = await parseSitemap(Buffer.from(text), { limits: { maxBytes: 45 } });
      expect(result.truncated).to.equal('max-bytes');
      expect(result.urls.map((u) => u.url)).to.deep.equal(['https://s.test/one', 'https://s.test/two']);
    });

    it('reports a broken gzip stream and keeps what came before', async () => {
      const entries = Array.from({ length: 5_000 }, (_, i) => `<url><loc>https://s.test/page-${i}-${'x'.repeat(i % 97)}</loc></url>`);
      const good = gzipSync(urlset(entries));
      // The last eight bytes are the checksum and length: the content inflates before the check fails.
      const broken = Buffer.concat([good.subarray(0, good.length - 8), Buffer.from('garbage!')]);
      const result = await parseSitemap(inChunks(broken, 4 * 1024));
      expect(result.error).to.match(/^gzip error/);
      expect(result.urls.length).to.be.within(1_000, 5_000);
      expect(result.urls[0]!.url).to.equal('https://s.test/page-0-');
    });

    it('reports a plain stream that fails mid-way and keeps the entries read before it', async () => {
      const xml = Buffer.from(urlset(Array.from({ length: 2_000 }, (_, i) => `<url><loc>https://s.test/${i}</loc></url>`)));
      async function* failing(): AsyncIterable<Uint8Array> {
        yield xml.subarray(0, Math.floor(xml.length / 2));
        throw new Error('connection reset');
      }
      const result = await parseSitemap(failing());
      expect(result.error).to.equal('read error: connection reset');
      expect(result.urls.length).to.be.within(900, 1_100);
    });

    it('reports a gzipped stream that fails mid-way instead of waiting for more', async () => {
      const gzipped = gzipSync(urlset(Array.from({ length: 2_000 }, (_, i) => `<url><loc>https://s.test/${i}</loc></url>`)));
      async function* failing(): AsyncIterable<Uint8Array> {
        yield gzipped.subarray(0, Math.floor(gzipped.length / 2));
        throw new Error('connection reset');
      }
      const result = await parseSitemap(failing());
      expect(result.error).to.equal('gzip error: connection reset');
      expect(result.urls.length).to.be.below(2_000);
    });

    it('releases the source stream when it stops early', async () => {
      const xml = Buffer.from(urlset(Array.from({ length: 100 }, (_, i) => `<url><loc>https://s.test/${i}</loc></url>`)));
      for (const body of [xml, gzipSync(xml)]) {
        let released = false;
        async function* endless(): AsyncIterable<Uint8Array> {
          try {
            yield body;
            for (;;) yield Buffer.from(' ');
          } finally {
            released = true;
          }
        }
        const result = await parseSitemap(endless(), { limits: { maxUrls: 10 } });
        expect(result.truncated).to.equal('max-urls');
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(released).to.equal(true);
      }
    });

    it('reports invalid JSON and finds nothing in it', async () => {
      const result = await parseSitemap(Buffer.from('{"version":"https://jsonfeed.org/version/1","items":['));
      expect(result.error).to.match(/^invalid JSON/);
      expect(result.urls).to.deep.equal([]);
    });
  });
});
