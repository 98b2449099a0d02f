import { expect } from 'chai';
import { load } from 'cheerio';
import { parsePage } from '../../../workers/fetching/page-tree.js';
import { WALL_SCAN_CHARS } from '../../../workers/fetching/page-walls.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

/**
 * The wall check's tree is parsed with the run-skipping tokenizer: it must be
 * the tree htmlparser2's stock parser builds, whether the page comes whole or
 * in the pieces a fetched page is decoded into.
 */
const STOCK = { xml: { xmlMode: false, decodeEntities: true } };

/** Cuts a text into pieces of `size` characters, as a decoded page arrives. */
function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

describe('the page tree of the wall check', () => {
  it('is the stock parser’s tree on markup written to trip a tokenizer', () => {
    const html = `<!doctype html><html><head><title>a &amp; b</title>
      <script>if (a < b && c > d) { x = "</div>"; }</script><style>p > a { color: red }</style></head>
      <body><p class=unquoted data-x='single &quot; &amp' id="double &lt;x&gt;">text &nbsp;&copy; &#x41;&#66;</p>
      <!-- a comment with <tags> --><![CDATA[ raw ]]><a href=/x?a=1&b=2>link</a><br/><img src="i.png" alt="">
      <textarea><b>not a tag</b></textarea><div\tclass="tab">tab</div><P>Upper<Span>case</SPAN></p></body></html>`;
    const stock = load(html, STOCK).html();
    expect(parsePage(html).html()).to.equal(stock);
    for (const size of [1, 7, 64]) expect(parsePage(piecesOf(html, size)).html(), `pieces of ${size}`).to.equal(stock);
  });

  it('is the stock parser’s tree on every page of the shared set, whole and in 16 KB pieces', function () {
    this.timeout(120_000);
    const files = extractionPageFiles();
    expect(files.length).to.be.greaterThan(100);
    files.forEach((file, i) => {
      const head = readExtractionPage(file).slice(0, WALL_SCAN_CHARS);
      const stock = load(head, STOCK).html();
      expect(parsePage(head).html(), file).to.equal(stock);
      if (i % 4 === 0) expect(parsePage(piecesOf(head, 16 * 1024)).html(), `${file} in pieces`).to.equal(stock);
    });
  });
});
