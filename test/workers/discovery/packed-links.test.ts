import { expect } from 'chai';
import { extractLinks, type ExtractedLink } from '../../../workers/discovery/link-extractor.js';
import { packLinks, packPage, unpackLinks, unpackPage } from '../../../workers/discovery/packed-links.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

describe('discovery/packed links', () => {
  it('gives back every link as it was: address, text, source and nofollow, in order', () => {
    const links: ExtractedLink[] = [
      { url: 'https://e.test/a', text: 'A link', source: 'anchor', nofollow: false },
      { url: 'https://e.test/map', text: '', source: 'area', nofollow: true },
      { url: 'https://e.test/p2', text: '', source: 'next', nofollow: false },
      { url: 'https://e.test/p0', text: 'caf\u00e9 \u{1F600} \u0000 text', source: 'prev', nofollow: true },
    ];
    const packed = packLinks(links);
    expect(packed.fields).to.have.length(12);
    expect(unpackLinks(packed)).to.deep.equal(links);
    expect(unpackLinks(packLinks([]))).to.deep.equal([]);
  });

  it('survives the move to another thread, its numbers transferred', () => {
    const page = extractLinks('<title>T</title><a href="/x" rel="nofollow">X</a><link rel="next" href="/2">', 'https://e.test/');
    const packed = packPage(page);
    const moved = structuredClone(packed, { transfer: [packed.links.fields.buffer as ArrayBuffer] });
    expect(packed.links.fields.byteLength).to.equal(0);
    expect(unpackPage(moved)).to.deep.equal(page);
  });

  it('gives back the links of every real page of the extraction set', () => {
    for (const file of extractionPageFiles().slice(0, 100)) {
      const page = extractLinks(readExtractionPage(file), 'https://e.test/dir/page.html');
      expect(unpackPage(packPage(page)), file).to.deep.equal(page);
    }
  });
});
