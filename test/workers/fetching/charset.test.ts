import { expect } from 'chai';
import iconv from 'iconv-lite';
import { asciiView, decodeText, decodeTextPieces, detectCharset } from '../../../workers/fetching/charset.js';

/** What the pipeline thread reads: the body in the charset the fetch detected. */
function decodeBody(bytes: Buffer, mime: string, label?: string): { text: string; charset: string } {
  const charset = detectCharset(bytes, mime, label);
  return { text: decodeText(bytes, charset), charset };
}

const html = (head: string, text: string) => `<!DOCTYPE html><html><head>${head}<title>t</title></head><body><p>${text}</p></body></html>`;

describe('charset detection and decoding', () => {
  it('uses the Content-Type charset over the meta tag', () => {
    const bytes = iconv.encode(html('<meta charset="koi8-r">', 'Café'), 'windows-1252');
    expect(detectCharset(bytes, 'text/html', 'windows-1252')).to.equal('windows-1252');
    expect(decodeBody(bytes, 'text/html', 'windows-1252').text).to.contain('Café');
  });

  it('resolves labels as browsers do: iso-8859-1 and us-ascii mean windows-1252, x-sjis means shift_jis', () => {
    const bytes = Buffer.from('plain');
    expect(detectCharset(bytes, 'text/html', 'ISO-8859-1')).to.equal('windows-1252');
    expect(detectCharset(bytes, 'text/html', 'us-ascii')).to.equal('windows-1252');
    expect(detectCharset(bytes, 'text/html', 'x-sjis')).to.equal('shift_jis');
    expect(detectCharset(bytes, 'text/html', 'GB2312')).to.equal('gbk');
  });

  it('decodes the C1 range of windows-1252 for a page labelled latin1', () => {
    const bytes = Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80]);
    expect(decodeBody(bytes, 'text/plain', 'latin1').text).to.equal('“q” €');
  });

  it('lets a byte order mark win over the Content-Type charset', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve ✓')]);
    expect(detectCharset(bytes, 'text/html', 'windows-1252')).to.equal('utf-8');
    expect(decodeBody(bytes, 'text/html', 'windows-1252').text).to.equal('naïve ✓');
  });

  it('detects UTF-16 big-endian by its BOM', () => {
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('日本', 'utf-16be')]);
    expect(decodeBody(bytes, 'text/plain').text).to.equal('日本');
  });

  it('falls back to the meta prescan when the header label is unknown', () => {
    const bytes = iconv.encode(html('<meta charset="euc-jp">', '東京'), 'euc-jp');
    expect(detectCharset(bytes, 'text/html', 'no-such-charset')).to.equal('euc-jp');
    expect(decodeBody(bytes, 'text/html', 'no-such-charset').text).to.contain('東京');
  });

  it('reads <meta http-equiv="Content-Type"> in HTML', () => {
    const bytes = iconv.encode(html('<meta http-equiv="content-type" content="text/html; charset=big5">', '臺北'), 'big5');
    expect(decodeBody(bytes, 'text/html').text).to.contain('臺北');
  });

  it('finds a meta charset later in the head than the first 1024 bytes, past scripts, as Chromium does', () => {
    // Past the first 1024 bytes, where the prescan (which reads script text as markup) has stopped.
    const scripts = `<script>${'var x = 1;'.repeat(120)} var banner = "<meta charset=koi8-r>";</script><!-- <meta charset="big5"> -->`;
    const bytes = iconv.encode(html(`${scripts}<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, '河北'), 'gbk');
    expect(bytes.indexOf('charset=gb2312')).to.be.greaterThan(1024);
    expect(detectCharset(bytes, 'text/html')).to.equal('gbk');
    expect(decodeBody(bytes, 'text/html').text).to.contain('河北');
    // A declaration in the body, or only inside a script or comment, is no declaration.
    const inBody = Buffer.from(`<html><head>${scripts}</head><body><p>x</p><meta charset="windows-1252"></body></html>`);
    expect(detectCharset(inBody, 'text/html')).to.equal('utf-8');
  });

  it('searches the head in one pass, whatever scripts, comments and meta tags a page opens without closing', () => {
    for (const head of ['<script'.repeat(9_000), '<!--'.repeat(16_000), '<meta '.repeat(10_000), `<script>${'<'.repeat(60_000)}`]) {
      const started = performance.now();
      expect(detectCharset(Buffer.from(`<html><head>${head}`), 'text/html'), head.slice(0, 12)).to.equal('utf-8');
      // One pass over 64 KB takes milliseconds; a search restarted at every tag would take minutes.
      expect(performance.now() - started, head.slice(0, 12)).to.be.below(5_000);
    }
  });

  it('ignores meta tags in bodies that are not HTML', () => {
    const bytes = Buffer.from('<meta charset="koi8-r"> plain text');
    expect(detectCharset(bytes, 'text/plain')).to.equal('utf-8');
  });

  it('reads the XML declaration of an XML body', () => {
    const bytes = iconv.encode('<?xml version="1.0" encoding="ISO-8859-2"?><feed><title>Zażółć</title></feed>', 'iso-8859-2');
    expect(detectCharset(bytes, 'application/rss+xml')).to.equal('iso-8859-2');
    expect(decodeBody(bytes, 'application/rss+xml').text).to.contain('Zażółć');
  });

  it('defaults to UTF-8', () => {
    const bytes = Buffer.from('<p>Grüße ✓</p>');
    expect(decodeBody(bytes, 'text/html')).to.deep.equal({ text: '<p>Grüße ✓</p>', charset: 'utf-8' });
    expect(decodeBody(Buffer.from('{"a":"ü"}'), 'application/json').charset).to.equal('utf-8');
  });

  it('decodes UTF-8 as iconv-lite does: the BOM dropped, a view of a larger buffer read alone, invalid bytes replaced alike', () => {
    const page = Buffer.from('\ufeff<p>Grüße ✓ 𝄞</p>');
    expect(decodeText(page, 'utf-8')).to.equal('<p>Grüße ✓ 𝄞</p>');
    const larger = Buffer.concat([Buffer.from('xx'), page, Buffer.from('yy')]);
    expect(decodeText(larger.subarray(2, 2 + page.length), 'utf-8')).to.equal('<p>Grüße ✓ 𝄞</p>');
    for (const invalid of [Buffer.from([0x3c, 0x70, 0xc3]), Buffer.from([0xe2, 0x82, 0x41, 0xff, 0xfe]), Buffer.from([0xef, 0xbb, 0xbf, 0xed, 0xa0, 0x80])]) {
      expect(decodeText(invalid, 'utf-8')).to.equal(iconv.decode(invalid, 'utf-8'));
    }
  });

  it('decodes a large body in pieces that join to decodeText\'s text, each small enough for the regular heap', () => {
    // Characters of one to four bytes, repeated so that every kind straddles some piece boundary.
    const unit = 'ab<p class="x">Grüße ✓ 𝄞 日本語</p>\n';
    const text = unit.repeat(Math.ceil(400_000 / Buffer.byteLength(unit)));
    const cases: Array<[Buffer, string]> = [
      [Buffer.from(text), 'utf-8'],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'utf-8'],
      // Invalid UTF-8 takes iconv-lite's path, replacement characters and all.
      [Buffer.concat([Buffer.from(text), Buffer.from([0xe2, 0x82, 0x41, 0xff]), Buffer.from(text)]), 'utf-8'],
      [iconv.encode(text.replace(/[✓𝄞日本語]/gu, '?'), 'windows-1252'), 'windows-1252'],
      [iconv.encode(text.replace(/[✓𝄞]/gu, '?'), 'shift_jis'), 'shift_jis'],
      [iconv.encode(text, 'utf-16le'), 'utf-16le'],
      [Buffer.from('<p>small</p>'), 'utf-8'],
    ];
    for (const [bytes, charset] of cases) {
      const pieces = decodeTextPieces(bytes, charset);
      expect(pieces.join(''), charset).to.equal(decodeText(bytes, charset));
      if (bytes.length > 100_000) expect(pieces.length, charset).to.be.greaterThan(1);
      for (const piece of pieces) expect(piece.length, charset).to.be.at.most(48 * 1024);
    }
  });

  it('skips a label it cannot decode and keeps looking', () => {
    const bytes = Buffer.from(html('', 'x'));
    expect(detectCharset(bytes, 'text/html', 'x-user-defined')).to.equal('utf-8');
  });

  describe('the view challenge detection reads', () => {
    it('finds ASCII markers in the raw bytes of an ASCII-compatible charset, up to the limit', () => {
      const bytes = iconv.encode('<title>Just a moment...</title><p>Grüße</p>', 'windows-1252');
      expect(asciiView(bytes, 'windows-1252', 1_000)).to.contain('<title>Just a moment...</title>');
      expect(asciiView(bytes, 'utf-8', 7)).to.equal('<title>');
    });

    it('decodes the start of a UTF-16 body, whose ASCII is not one byte a character', () => {
      const bytes = iconv.encode('\ufeff<title>Just a moment...</title>', 'utf-16le');
      expect(asciiView(bytes, 'utf-16le', 1_000)).to.contain('<title>Just a moment...</title>');
    });
  });
});
