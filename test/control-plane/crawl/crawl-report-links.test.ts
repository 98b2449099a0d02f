import { create } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { foundLinks } from '../../../control-plane/crawl/crawl-reports.js';
import { CrawlBatchReportSchema, CrawlPageOutcomeSchema, DiscoveredLinkSchema } from '../../../proto/gen/trawl/v1/crawl_pb.js';

const link = (path: string, depth = 1) => create(DiscoveredLinkSchema, { url: `https://site.test${path}`, depth, score: 0.5, source: 'link' });

describe('crawl report links', () => {
  const table = [link('/nav-a'), link('/nav-b'), link('/from-failed'), link('/from-stale'), link('/own')];
  const report = create(CrawlBatchReportSchema, {
    seeds: [create(DiscoveredLinkSchema, { url: 'https://site.test/from-sitemap', depth: 1, source: 'sitemap' })],
    links: table,
    pages: [
      create(CrawlPageOutcomeSchema, { url: 'https://site.test/p1', ok: true, linkRefs: [1, 0, 4] }),
      create(CrawlPageOutcomeSchema, { url: 'https://site.test/p2', ok: true, linkRefs: [0, 1] }),
      create(CrawlPageOutcomeSchema, { url: 'https://site.test/failed', ok: false, linkRefs: [2] }),
      create(CrawlPageOutcomeSchema, { url: 'https://site.test/stale', ok: true, linkRefs: [3] }),
      // A worker that writes its pages' links out in full.
      create(CrawlPageOutcomeSchema, { url: 'https://site.test/p3', ok: true, links: [link('/written-out')], linkRefs: [0] }),
    ],
  });

  it('reads the seeds and the links of applied, succeeded pages, in page order, each table entry once', () => {
    const applied = new Set(['https://site.test/p1', 'https://site.test/p2', 'https://site.test/failed', 'https://site.test/p3']);
    expect(foundLinks(report, applied).map((l) => l.url.slice(17))).to.deep.equal(['/from-sitemap', '/nav-b', '/nav-a', '/own', '/written-out']);
  });

  it('takes a shared link from the next applied page when the first page naming it was not applied', () => {
    const applied = new Set(['https://site.test/p2', 'https://site.test/stale']);
    expect(foundLinks(report, applied).map((l) => l.url.slice(17))).to.deep.equal(['/from-sitemap', '/nav-a', '/nav-b', '/from-stale']);
  });

  it('ignores a position outside the table', () => {
    const bad = create(CrawlBatchReportSchema, { links: [link('/a')], pages: [create(CrawlPageOutcomeSchema, { url: 'https://site.test/p', ok: true, linkRefs: [0, 7] })] });
    expect(foundLinks(bad, new Set(['https://site.test/p'])).map((l) => l.url)).to.deep.equal(['https://site.test/a']);
  });
});
