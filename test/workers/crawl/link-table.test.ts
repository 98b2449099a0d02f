import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { CrawlBatchReportSchema, CrawlPageOutcomeSchema } from '../../../proto/gen/trawl/v1/crawl_pb.js';
import { LinkTable, type FrontierLink } from '../../../workers/crawl/link-table.js';

const link = (path: string, depth = 2, score = 0.5, budgetKey = ''): FrontierLink => ({ url: `https://site.test${path}`, depth, score, source: 'link', budgetKey });

describe('crawl/link-table', () => {
  it('writes each distinct link once and names every page link by its position, in the page order', () => {
    const table = new LinkTable();
    const nav = [link('/a'), link('/b'), link('/c')];
    const first = table.refs([...nav, link('/only-first')]);
    const second = table.refs([link('/c'), link('/b'), link('/a'), link('/only-second')]);
    expect(table.links.map((l) => l.url.slice(17))).to.deep.equal(['/a', '/b', '/c', '/only-first', '/only-second']);
    expect(first).to.deep.equal([0, 1, 2, 3]);
    expect(second).to.deep.equal([2, 1, 0, 4]);
    expect(second.map((at) => table.links[at]!.url)).to.deep.equal(['/c', '/b', '/a', '/only-second'].map((p) => `https://site.test${p}`));
  });

  it('keeps links that differ in depth or score apart, so each page reads back what it found', () => {
    const table = new LinkTable();
    const shallow = table.refs([link('/x', 2, 0.5, '/docs/**')]);
    const deeper = table.refs([link('/x', 3, 0.5, '/docs/**')]);
    const scored = table.refs([link('/x', 2, 0.9, '/docs/**')]);
    expect(new Set([shallow[0], deeper[0], scored[0]]).size).to.equal(3);
    expect(table.links[deeper[0]!]).to.include({ depth: 3, score: 0.5, source: 'link', budgetKey: '/docs/**' });
    expect(table.links[scored[0]!]).to.include({ depth: 2, score: 0.9 });
  });

  it('makes a batch report of shared navigation far smaller than writing every page out', () => {
    const nav = Array.from({ length: 150 }, (_, i) => link(`/chapter/${i}/section-with-a-long-name.html`));
    const table = new LinkTable();
    const pages = Array.from({ length: 25 }, (_, i) => ({ url: `https://site.test/p${i}`, refs: table.refs([...nav, link(`/own/${i}`)]) }));
    const compact = create(CrawlBatchReportSchema, {
      links: table.links,
      pages: pages.map((p) => create(CrawlPageOutcomeSchema, { url: p.url, ok: true, linkRefs: p.refs })),
    });
    const full = create(CrawlBatchReportSchema, {
      pages: pages.map((p) => create(CrawlPageOutcomeSchema, { url: p.url, ok: true, links: p.refs.map((at) => table.links[at]!) })),
    });
    const compactBytes = toBinary(CrawlBatchReportSchema, compact);
    expect(compactBytes.length * 5).to.be.lessThan(toBinary(CrawlBatchReportSchema, full).length);
    const read = fromBinary(CrawlBatchReportSchema, compactBytes);
    expect(read.pages[7]!.linkRefs.map((at) => read.links[at]!.url)).to.deep.equal([...nav, link('/own/7')].map((l) => l.url));
  });
});
