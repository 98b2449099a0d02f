import { expect } from 'chai';
import { parseUntil, visibleTextReaches } from '../../../workers/fetching/visible-text.js';
import { parsePage, visibleText } from '../../../workers/fetching/page-tree.js';
import { cutInto } from '../../fixtures/text-pieces.js';

describe('the text a page shows', () => {
  const hidden = '<head><title>A title long enough to count if it were counted</title><style>p { color: red }</style></head>';

  it('counts only what a reader sees: not scripts, styles, templates, SVG or the head', () => {
    const page = `<html>${hidden}<body><script>var words = "${'x'.repeat(500)}";</script><template>${'t'.repeat(300)}</template><svg><text>${'s'.repeat(300)}</text></svg><p>Tide &amp; time</p></body></html>`;
    expect(visibleTextReaches(page, 11)).to.equal(true);
    expect(visibleTextReaches(page, 12)).to.equal(false);
  });

  it('never counts more than the text with its spaces collapsed', () => {
    const page = `<body><p>  a   b  </p>\n\n<p>c</p></body>`;
    const text = visibleText(parsePage(page));
    expect(text).to.equal('a b c');
    expect(visibleTextReaches(page, text.length)).to.equal(true);
    expect(visibleTextReaches(page, text.length + 1)).to.equal(false);
  });

  it('stops parsing once it has seen enough', () => {
    const page = `<body>${'<p>A paragraph of plain harbour news.</p>'.repeat(5_000)}</body>`;
    let tags = 0;
    parseUntil(page, { onopentag: () => void tags++ }, () => tags >= 10);
    expect(tags).to.be.at.least(10).and.below(1_000);
    let all = 0;
    parseUntil(page, { onopentag: () => void all++ }, () => false);
    expect(all).to.equal(5_001);
  });

  it('reads the visible text of a tree in place, from the body, or the whole page when it has none', () => {
    expect(visibleText(parsePage(`<html>${hidden}<body><h1>Tides</h1><noscript>Enable scripts</noscript><p>High water at 18:40.</p></body></html>`))).to.equal('TidesHigh water at 18:40.');
    expect(visibleText(parsePage(`<title>Harbour</title><h1>Tides</h1> <p>Low water at 12:10.</p><script>x()</script>`))).to.equal('Tides Low water at 12:10.');
  });

  it('builds the same tree from a page in pieces as from the page whole, whatever the cuts', () => {
    const page = `<html>${hidden}<body><h1 class="head">Tides &amp; times</h1><!-- a note --><p data-x="1 &lt; 2">High water at <b>18:40</b>.</p><script>if (a < b) x()</script></body></html>`;
    const whole = parsePage(page);
    for (const size of [1, 3, 7, 64]) {
      const cut = parsePage(cutInto(page, size));
      expect(cut.html(), `in pieces of ${size}`).to.equal(whole.html());
      expect(visibleText(cut)).to.equal('Tides & timesHigh water at 18:40.');
    }
  });
});
