import { create, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { loadConfig } from '../../../common/config.js';
import { CrawlPageSchema } from '../../../proto/gen/trawl/v1/crawl_pb.js';
import { ScrapeResultSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { renderResultFile, resultObjectKey } from '../../../control-plane/crawl/crawl-result-files.js';

const page = (url: string, title: string) =>
  create(CrawlPageSchema, {
    jobId: `job-${title}`,
    url,
    depth: 1,
    status: 'completed',
    statusCode: 200,
    tierUsed: '1',
    creditsUsed: 1,
    result: toBinary(ScrapeResultSchema, create(ScrapeResultSchema, { url, title, statusCode: 200, finalUrl: url })),
    completedAt: '2026-01-01T00:00:00.000Z',
  });

describe('crawl result files: part names and bodies', () => {
  it('names parts under the prefix and crawl, numbered so they list in order', () => {
    expect(resultObjectKey('exports/', 'c1', 7, 'jsonl')).to.equal('exports/c1/results-00007.jsonl');
    expect(resultObjectKey('a/b', 'c1', 12, 'json')).to.equal('a/b/c1/results-00012.json');
    expect(resultObjectKey('', 'c1', 1, 'jsonl')).to.equal('c1/results-00001.jsonl');
  });

  it('writes one status-shaped page object per JSONL line, or one JSON array', () => {
    const pages = [page('https://example.com/a', 'A'), page('https://example.com/b', 'B')];
    const lines = renderResultFile(pages, 'jsonl').toString().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[2]).to.equal('');
    const first = JSON.parse(lines[0]!);
    expect(first).to.include({ job_id: 'job-A', url: 'https://example.com/a', status: 'completed', status_code: 200, tier_used: '1', error: null });
    expect(first.result.title).to.equal('A');
    const array = JSON.parse(renderResultFile(pages, 'json').toString());
    expect(array.map((p: { url: string }) => p.url)).to.deep.equal(['https://example.com/a', 'https://example.com/b']);
  });
});

describe('crawl storage configuration', () => {
  it('offers a bucket only when bucket and both keys are set, and refuses a partial setting', () => {
    expect(loadConfig({}).crawlStorage).to.deep.equal({ s3: null, r2: null });
    const r2 = loadConfig({
      TRAWL_CRAWL_STORAGE_R2_ENDPOINT: 'https://acct.r2.cloudflarestorage.com',
      TRAWL_CRAWL_STORAGE_R2_BUCKET: 'b',
      TRAWL_CRAWL_STORAGE_R2_ACCESS_KEY_ID: 'k',
      TRAWL_CRAWL_STORAGE_R2_SECRET_ACCESS_KEY: 's',
    }).crawlStorage.r2;
    expect(r2).to.include({ region: 'auto', bucket: 'b', forcePathStyle: false });
    expect(() => loadConfig({ TRAWL_CRAWL_STORAGE_S3_BUCKET: 'b' })).to.throw(/must be set together/);
    expect(() => loadConfig({ TRAWL_CRAWL_STORAGE_R2_BUCKET: 'b', TRAWL_CRAWL_STORAGE_R2_ACCESS_KEY_ID: 'k', TRAWL_CRAWL_STORAGE_R2_SECRET_ACCESS_KEY: 's' })).to.throw(/R2_ENDPOINT/);
  });
});
