import { expect } from 'chai';
import { decodeText, decodeTextPieces } from '../../../workers/fetching/charset.js';
import { processDocument, type PipelineInput } from '../../../workers/pipeline/index.js';
import { textLength, textMatches, textStart, textWithin, wholeText } from '../../../workers/html/document-text.js';
import { cutInto } from '../../fixtures/text-pieces.js';
import { toStoredResult } from '../../../workers/pipeline/stored-result.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

const source = (url: string, includeRawHtml: boolean) => ({
  url,
  finalUrl: url,
  statusCode: 200,
  headers: {},
  responseTimeMs: 1,
  sizeBytes: 0,
  includeRawHtml,
  contentAsFormats: true,
});

describe('a document read in pieces', () => {
  it('joins, measures and starts like the whole text', () => {
    const pieces = ['<p>ab', 'c</p>', '', '<i>d</i>'];
    expect(wholeText(pieces)).to.equal('<p>abc</p><i>d</i>');
    expect(wholeText(['only'])).to.equal('only');
    expect(textLength(pieces)).to.equal(18);
    expect(textStart(pieces, 7)).to.equal('<p>abc<');
    expect(textStart(pieces, 100)).to.equal('<p>abc</p><i>d</i>');
    expect(textStart('whole text', 5)).to.equal('whole');
  });

  it('finds a pattern in pieces where it finds it in the whole text, across boundaries and runs of short pieces', () => {
    const text = `${'x'.repeat(300)}isAccessibleForFree": false${'y'.repeat(300)}`;
    const pattern = /isAccessibleForFree[^<]{0,60}false/i;
    for (const size of [1, 2, 7, 20, 64, 127, 128, 129, 500]) {
      expect(textMatches(pattern, cutInto(text, size)), `pieces of ${size}`).to.equal(true);
      expect(textMatches(/isAccessibleForFree[^<]{0,60}true/i, cutInto(text, size)), `pieces of ${size}`).to.equal(false);
    }
    expect(textWithin(['abc', 'def', 'ghi'], 5)).to.deep.equal(['abc', 'de']);
    expect(textWithin(['abc', 'def'], 6)).to.deep.equal(['abc', 'def']);
    expect(textWithin(['abc'], 10)).to.deep.equal(['abc']);
  });

  it('gives every format, the links and the raw page exactly as the whole page does, on real pages cut into pieces', function () {
    this.timeout(120_000);
    const files = extractionPageFiles().filter((_, i) => i % 3 === 0);
    let cut = 0;
    for (const file of files) {
      const bytes = Buffer.from(readExtractionPage(file), 'utf8');
      const pieces = decodeTextPieces(bytes, 'utf-8');
      if (pieces.length > 1) cut++;
      const url = `https://pages.test/${file}`;
      const input = (body: PipelineInput['body']): PipelineInput => ({
        url,
        body,
        contentType: 'text/html',
        formats: ['markdown', 'text', 'html', 'json'],
        onlyMainContent: true,
        links: true,
      });
      const whole = decodeText(bytes, 'utf-8');
      const fromWhole = processDocument(input(whole));
      const fromPieces = processDocument(input(pieces));
      expect(fromPieces.formats, file).to.deep.equal(fromWhole.formats);
      expect(fromPieces.links, file).to.deep.equal(fromWhole.links);
      expect(toStoredResult(fromPieces, source(url, true), pieces), file).to.deep.equal(toStoredResult(fromWhole, source(url, true), whole));
    }
    // Most pages of the set are larger than one piece, so the cuts fall inside text, tags, attributes and entities.
    expect(cut).to.be.greaterThan(files.length / 2);
  });
});
