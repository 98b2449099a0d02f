import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { TrawlError } from '../../../common/errors.js';
import { createTesseract, ocrTextToHtml } from '../../../workers/document/ocr.js';
import { acceptedDocumentMimes, documentKind } from '../../../workers/fetching/document-types.js';
import { pdfToHtml } from '../../../workers/pipeline/pdf/pdf-to-html.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url)));

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TrawlError) return err;
    throw err;
  }
  throw new Error('expected a TrawlError');
}

describe('documents: types, PDF text and OCR', () => {
  it('accepts the binary types of each mode and recognises unlabelled documents by their bytes', () => {
    expect(acceptedDocumentMimes('auto', false)).to.deep.equal(['application/pdf']);
    expect(acceptedDocumentMimes('auto', true)).to.include('image/png');
    expect(acceptedDocumentMimes('html', false)).to.deep.equal([]);
    expect(acceptedDocumentMimes('ocr', false)).to.include.members(['image/jpeg', 'application/octet-stream']);
    expect(documentKind('application/octet-stream', fixture('report.pdf'))).to.equal('pdf');
    expect(documentKind('application/octet-stream', fixture('invoice.png'))).to.equal('image');
    expect(documentKind('application/octet-stream', Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).to.equal('image');
    expect(documentKind('application/octet-stream', Buffer.from('plain bytes'))).to.equal('text');
    expect(documentKind('image/png', Buffer.from('anything'))).to.equal('image');
    expect(documentKind('text/html', fixture('report.pdf'))).to.equal('text');
  });

  it('reads a PDF into HTML with its title, headings and table', async () => {
    const doc = await pdfToHtml(fixture('report.pdf'));
    expect(doc.title).to.equal('Quarterly Report');
    expect(doc.pages).to.equal(1);
    expect(doc.html).to.contain('<h1>Quarterly Report 2026</h1>');
    expect(doc.html).to.contain('<tr><td>South</td><td>950</td><td>7%</td></tr>');
  });

  it('fails with EXTRACTION_FAILED on bytes that are not a PDF', async () => {
    const err = await failure(pdfToHtml(new TextEncoder().encode('%PDF-1.4 nothing else')));
    expect(err.code).to.equal('EXTRACTION_FAILED');
  });

  it('reads an image with Tesseract and lists its languages', async () => {
    const ocr = createTesseract();
    expect(await ocr.languages()).to.include('eng').and.not.include('osd');
    expect(await ocr.version()).to.match(/^tesseract \d/);
    const text = await ocr.read(fixture('invoice.png'), { languages: 'eng', timeoutMs: 60_000 });
    expect(text).to.contain('The quick brown fox jumps over the lazy dog.');
  });

  it('refuses a language without data, and stops a run past its time', async () => {
    const ocr = createTesseract();
    const missing = await failure(ocr.read(fixture('invoice.png'), { languages: 'eng+tlh', timeoutMs: 60_000 }));
    expect(missing.code).to.equal('VALIDATION_ERROR');
    expect(missing.message).to.contain('tlh');
    const slow = await failure(ocr.read(fixture('invoice.png'), { languages: 'eng', timeoutMs: 1 }));
    expect(slow.code).to.equal('EXTRACTION_FAILED');
    expect(slow.message).to.contain('longer than');
  });

  it('answers SERVICE_UNAVAILABLE when the OCR program is missing', async () => {
    const err = await failure(createTesseract({ command: '/nonexistent/tesseract' }).languages());
    expect(err.code).to.equal('SERVICE_UNAVAILABLE');
  });

  it('fails an unreadable image with EXTRACTION_FAILED', async () => {
    const err = await failure(createTesseract().read(new TextEncoder().encode('not an image'), { languages: 'eng', timeoutMs: 60_000 }));
    expect(err.code).to.equal('EXTRACTION_FAILED');
  });

  it('writes OCR text as paragraphs, mending words broken at a line end', () => {
    const html = ocrTextToHtml('The harbour crane was re-\npaired last week.\n\nSecond <para>\f Third', 'Scan');
    expect(html).to.contain('<p>The harbour crane was repaired last week.</p>');
    expect(html).to.contain('<p>Second &lt;para&gt;</p>');
    expect(html).to.contain('<p>Third</p>');
  });
});
