import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { collectSitemapUrls, sitemapCandidates, type SitemapFetcher } from '../../../workers/discovery/sitemap-discovery.js';
import { normalizeUrl } from '../../../common/url-normalizer.js';

const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/sitemaps');

function urlset(urls: string[]): Buffer {
  return Buffer.from(`<urlset>${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`);
}

function index(sitemaps: string[]): Buffer {
  return Buffer.from(`<sitemapindex>${sitemaps.map((u) => `<sitemap><loc>${u}</loc></sitemap>`).join('')}</sitemapindex>`);
}

/** A fetcher over a fixed site, recording what was asked for. */
function siteFetcher(files: Record<string, Buffer | Error>): SitemapFetcher & { requested: string[] } {
  const requested: string[] = [];
  const fetcher = async (url: string) => {
    requested.push(url);
    const file = files[url];
    if (file instanceof Error) throw file;
    return file ?? null;
  };
  return Object.assign(fetcher, { requested });
}

describe('discovery/sitemap discovery', () => {
  it('tries the custom sitemap path (default /sitemap.xml) on the origin, then robots.txt sitemaps, each once', () => {
    expect(sitemapCandidates('https://e.test/docs/start')).to.deep.equal(['https://e.test/sitemap.xml']);
    expect(sitemapCandidates('https://e.test/docs/', ['https://e.test/s1.xml', 'https://e.test/sitemap_index.xml'], '/sitemap_index.xml')).to.deep.equal([
      'https://e.test/sitemap_index.xml',
      'https://e.test/s1.xml',
    ]);
  });

  it('follows a sitemap index to its urlsets, gzipped ones included, in order', async () => {
    const fetcher = siteFetcher({
      'https://e.test/sitemap.xml': index(['https://e.test/a.xml.gz', 'https://e.test/b.xml']),
      'https://e.test/a.xml.gz': gzipSync(urlset(['https://e.test/1', 'https://e.test/2'])),
      'https://e.test/b.xml': urlset(['https://e.test/3']),
    });
    const result = await collectSitemapUrls(['https://e.test/sitemap.xml'], fetcher, { maxUrls: 100 });
    expect(result.urls.map((u) => u.url)).to.deep.equal(['https://e.test/1', 'https://e.test/2', 'https://e.test/3']);
    expect(result.read).to.deep.equal(['https://e.test/sitemap.xml', 'https://e.test/a.xml.gz', 'https://e.test/b.xml']);
    expect(result.truncated).to.equal(false);
  });

  it('reads the shared urlset through a fetcher that streams it', async () => {
    const fetcher: SitemapFetcher = async () => (async function* () {
      yield readFileSync(path.join(DATA, 'sitemap.xml.gz'));
    })();
    const result = await collectSitemapUrls(['https://www.sitemaps.org/sitemap.xml.gz'], fetcher, { maxUrls: 1_000 });
    expect(result.urls).to.have.length(84);
  });

  it('keeps each URL once by the given key and counts only accepted URLs', async () => {
    const fetcher = siteFetcher({
      'https://e.test/one.xml': urlset(['https://e.test/a?utm_source=x', 'https://e.test/a', 'https://other.test/x', 'https://e.test/b']),
      'https://e.test/two.xml': urlset(['https://e.test/b#frag', 'https://e.test/c']),
    });
    const result = await collectSitemapUrls(['https://e.test/one.xml', 'https://e.test/two.xml'], fetcher, {
      maxUrls: 100,
      accept: (url) => new URL(url).hostname === 'e.test',
      key: (url) => normalizeUrl(url),
    });
    expect(result.urls.map((u) => u.url)).to.deep.equal(['https://e.test/a?utm_source=x', 'https://e.test/b', 'https://e.test/c']);
  });

  it('stops at maxUrls and says the result is truncated', async () => {
    const fetcher = siteFetcher({
      'https://e.test/sitemap.xml': index(['https://e.test/a.xml', 'https://e.test/b.xml']),
      'https://e.test/a.xml': urlset(['https://e.test/1', 'https://e.test/2', 'https://e.test/3']),
      'https://e.test/b.xml': urlset(['https://e.test/4']),
    });
    const result = await collectSitemapUrls(['https://e.test/sitemap.xml'], fetcher, { maxUrls: 2, concurrency: 1 });
    expect(result.urls.map((u) => u.url)).to.deep.equal(['https://e.test/1', 'https://e.test/2']);
    expect(result.truncated).to.equal(true);
    expect(fetcher.requested).to.not.include('https://e.test/b.xml');
  });

  it('reads at most maxFiles files and follows indexes only maxIndexDepth levels', async () => {
    const files: Record<string, Buffer> = { 'https://e.test/sitemap.xml': index(['https://e.test/l1.xml']) };
    files['https://e.test/l1.xml'] = index(['https://e.test/l2.xml']);
    files['https://e.test/l2.xml'] = index(['https://e.test/l3.xml']);
    files['https://e.test/l3.xml'] = urlset(['https://e.test/deep']);
    const shallow = siteFetcher(files);
    const result = await collectSitemapUrls(['https://e.test/sitemap.xml'], shallow, { maxUrls: 10, maxIndexDepth: 2 });
    expect(shallow.requested).to.deep.equal(['https://e.test/sitemap.xml', 'https://e.test/l1.xml', 'https://e.test/l2.xml']);
    expect(result.urls).to.deep.equal([]);

    const many = siteFetcher({ 'https://e.test/sitemap.xml': index(Array.from({ length: 10 }, (_, i) => `https://e.test/s${i}.xml`)) });
    const capped = await collectSitemapUrls(['https://e.test/sitemap.xml'], many, { maxUrls: 10, maxFiles: 4 });
    expect(many.requested).to.have.length(4);
    expect(capped.truncated).to.equal(true);
  });

  it('reads an index that lists itself only once', async () => {
    const fetcher = siteFetcher({ 'https://e.test/sitemap.xml': index(['https://e.test/sitemap.xml']) });
    await collectSitemapUrls(['https://e.test/sitemap.xml'], fetcher, { maxUrls: 10 });
    expect(fetcher.requested).to.deep.equal(['https://e.test/sitemap.xml']);
  });

  it('records fetch failures and goes on with the other sitemaps; a missing sitemap is no failure', async () => {
    const fetcher = siteFetcher({
      'https://e.test/broken.xml': new Error('connection reset'),
      'https://e.test/ok.xml': urlset(['https://e.test/1']),
    });
    const result = await collectSitemapUrls(['https://e.test/missing.xml', 'https://e.test/broken.xml', 'https://e.test/ok.xml'], fetcher, { maxUrls: 10 });
    expect(result.failures).to.deep.equal([{ url: 'https://e.test/broken.xml', error: 'connection reset' }]);
    expect(result.read).to.deep.equal(['https://e.test/ok.xml']);
    expect(result.urls.map((u) => u.url)).to.deep.equal(['https://e.test/1']);
  });
});
