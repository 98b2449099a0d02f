import { expect } from 'chai';
import type { CheerioAPI } from 'cheerio';
import { findWallMarkup, WALL_NAMES } from '../../../workers/fetching/paywall-detector.js';
import { firstElement, parsePage } from '../../../workers/fetching/page-tree.js';
import { WALL_SCAN_CHARS } from '../../../workers/fetching/page-walls.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

/**
 * The paywall check finds its elements in one walk of the tree instead of
 * three selector queries, and the body without a query: each must match
 * exactly what the selectors it replaced match, in the same order.
 */
const CONTAINERS = [...WALL_NAMES.flatMap((n) => [`[class*="${n}" i]`, `[id*="${n}" i]`]), '[data-paywall]'].join(', ');

function expectSameAsSelectors($: CheerioAPI, what: string): void {
  const walk = findWallMarkup($.root().get(0)!, true);
  expect(walk.containers, `${what}: containers`).to.deep.equal($(CONTAINERS).get());
  expect(walk.jsonLd, `${what}: JSON-LD scripts`).to.deep.equal($('script[type="application/ld+json"]').get());
  expect(walk.notFreeMarks, `${what}: microdata marks`).to.deep.equal($('[itemprop="isAccessibleForFree"]').get());
  expect(firstElement($.root().get(0)!, 'body'), `${what}: body`).to.equal($('body').get(0));
}

describe('the paywall check’s walk of the page tree', () => {
  it('matches what the selectors match, however the markup is written', () => {
    const html = `<!doctype html><HTML><HEAD>
      <SCRIPT TYPE="Application/LD+JSON">{"isAccessibleForFree":false}</SCRIPT>
      <script type="application/ld+json ">{"not":"matched: the type has a space"}</script>
      <script type="text/javascript">var paywall = true;</script>
      </HEAD><BODY>
      <div CLASS="Story JS-PayWall-overlay"><div id="inner-REGWALL"><p>Subscribe to continue reading</p></div></div>
      <section data-paywall><p>hard</p></section>
      <span class="tp-container-x" id="tp-modal"></span>
      <meta itemprop="isAccessibleForFree" content="false">
      <meta itemprop="isaccessibleforfree" content="false">
      <div class="" id="">empty</div>
      <template><div class="paywall">in a template</div></template>
      </BODY></HTML>`;
    const $ = parsePage(html);
    expectSameAsSelectors($, 'crafted page');
    const walk = findWallMarkup($.root().get(0)!, true);
    expect(walk.containers.map((el) => el.attribs['class'] ?? el.attribs['id'] ?? 'data-paywall')).to.deep.equal([
      'Story JS-PayWall-overlay',
      'inner-REGWALL',
      'data-paywall',
      'tp-container-x',
      'paywall',
    ]);
    expect(walk.jsonLd).to.have.length(1);
    expect(walk.notFreeMarks).to.have.length(1);
    expect(findWallMarkup($.root().get(0)!, false).containers).to.deep.equal([]);
  });

  it('finds no body where a page has none, as the selector does', () => {
    const $ = parsePage('<p>Only a paragraph</p>');
    expect(firstElement($.root().get(0)!, 'body')).to.equal(undefined);
    expectSameAsSelectors($, 'a page without a body');
  });

  it('matches what the selectors match on every page of the shared set', function () {
    this.timeout(120_000);
    const files = extractionPageFiles();
    expect(files.length).to.be.greaterThan(100);
    let containers = 0;
    let scripts = 0;
    for (const file of files) {
      const $ = parsePage(readExtractionPage(file).slice(0, WALL_SCAN_CHARS));
      expectSameAsSelectors($, file);
      const walk = findWallMarkup($.root().get(0)!, true);
      containers += walk.containers.length;
      scripts += walk.jsonLd.length;
    }
    // The set holds both kinds of element, so the comparison above compared something.
    expect(containers).to.be.greaterThan(0);
    expect(scripts).to.be.greaterThan(0);
  });
});
