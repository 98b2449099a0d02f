import { expect } from 'chai';
import { extractLinks } from '../../../workers/discovery/link-extractor.js';
import { convertHtml } from '../../../workers/pipeline/content/index.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

const PAGE = 'https://e.test/docs/page.html';

describe('discovery/link extractor', () => {
  it('finds <a>, <area> and <link rel=next|prev> links with their text and source', () => {
    const html = `<html><head><link rel="next" href="page2.html"><link rel="prev" href="/docs/page0.html"></head><body>
      <a href="/about">  About
        <b>us</b> </a>
      <map><area href="region.html" alt="A region"></map>
      <a href="https://other.test/x">Elsewhere</a></body></html>`;
    const { links } = extractLinks(html, PAGE);
    expect(links).to.deep.equal([
      { url: 'https://e.test/docs/page2.html', text: '', source: 'next', nofollow: false },
      { url: 'https://e.test/docs/page0.html', text: '', source: 'prev', nofollow: false },
      { url: 'https://e.test/about', text: 'About us', source: 'anchor', nofollow: false },
      { url: 'https://e.test/docs/region.html', text: 'A region', source: 'area', nofollow: false },
      { url: 'https://other.test/x', text: 'Elsewhere', source: 'anchor', nofollow: false },
    ]);
  });

  it('resolves against the first <base href>, even for links before it', () => {
    const html = '<a href="early">e</a><base href="https://cdn.test/root/"><base href="https://ignored.test/"><a href="late?x=1">l</a>';
    expect(extractLinks(html, PAGE).links.map((l) => l.url)).to.deep.equal(['https://cdn.test/root/early', 'https://cdn.test/root/late?x=1']);
  });

  it('resolves a relative <base href> against the page URL', () => {
    expect(extractLinks('<base href="/v2/"><a href="x">x</a>', PAGE).links[0]!.url).to.equal('https://e.test/v2/x');
  });

  it('ignores javascript:, mailto:, tel:, data:, fragment-only and empty links', () => {
    const html = ['javascript:void(0)', 'JavaScript:go()', 'mailto:a@e.test', 'tel:+123', 'data:text/html,hi', '#top', '  #x', '', 'ftp://e.test/f']
      .map((href) => `<a href="${href}">x</a>`)
      .join('');
    expect(extractLinks(html + '<a href="/kept#frag">k</a>', PAGE).links.map((l) => l.url)).to.deep.equal(['https://e.test/kept']);
  });

  it('marks rel=nofollow links, and every link under a robots nofollow meta tag', () => {
    const own = extractLinks('<a href="/a" rel="external NoFollow">a</a><a href="/b">b</a>', PAGE);
    expect(own.links.map((l) => l.nofollow)).to.deep.equal([true, false]);
    expect(own.robots).to.deep.equal({ noindex: false, nofollow: false });
    const meta = extractLinks('<meta name="ROBOTS" content="noindex, nofollow"><a href="/b">b</a>', PAGE);
    expect(meta.links[0]!.nofollow).to.equal(true);
    expect(meta.robots).to.deep.equal({ noindex: true, nofollow: true });
    expect(extractLinks('<meta name="robots" content="none">', PAGE).robots).to.deep.equal({ noindex: true, nofollow: true });
  });

  it('reads canonical, title and description', () => {
    const html = '<head><title> The  Page </title><meta name="description" content="About things."><link rel="canonical" href="/docs/page.html?b=1#c"></head><svg><title>icon</title></svg>';
    const page = extractLinks(html, PAGE);
    expect(page.canonical).to.equal('https://e.test/docs/page.html?b=1');
    expect(page.title).to.equal('The Page');
    expect(page.description).to.equal('About things.');
  });

  it('does not take an SVG title for the page title', () => {
    expect(extractLinks('<body><svg><title>icon</title></svg></body>', PAGE).title).to.equal(null);
  });

  it('uses the alt text of an image when a link has no text', () => {
    expect(extractLinks('<a href="/home"><img src="logo.png" alt="Home page"></a>', PAGE).links[0]!.text).to.equal('Home page');
  });

  it('decodes entities in hrefs and text', () => {
    const { links } = extractLinks('<a href="/s?a=1&amp;b=2">Fish &amp; chips</a>', PAGE);
    expect(links[0]).to.include({ url: 'https://e.test/s?a=1&b=2', text: 'Fish & chips' });
  });

  it('ends an open link when another starts, as browsers do', () => {
    const { links } = extractLinks('<a href="/one">first<a href="/two">second</a>', PAGE);
    expect(links.map((l) => [l.url, l.text])).to.deep.equal([
      ['https://e.test/one', 'first'],
      ['https://e.test/two', 'second'],
    ]);
  });

  it('keeps a link left open at the end of the page', () => {
    expect(extractLinks('<a href="/open">text', PAGE).links.map((l) => l.text)).to.deep.equal(['text']);
  });

  it('bounds the number of links and the length of their text', () => {
    const html = Array.from({ length: 30 }, (_, i) => `<a href="/p${i}">${'word '.repeat(100)}</a>`).join('');
    const page = extractLinks(html, PAGE, { maxLinks: 10, maxTextLength: 50 });
    expect(page.links).to.have.length(10);
    expect(page.droppedLinks).to.equal(20);
    expect(page.links.every((l) => l.text.length <= 50)).to.equal(true);
  });

  it('skips <a> without href and unparsable URLs', () => {
    expect(extractLinks('<a name="x">anchor</a><a href="http://[bad">b</a><a href="/ok">ok</a>', PAGE).links.map((l) => l.url)).to.deep.equal([
      'https://e.test/ok',
    ]);
  });

  describe('read in the content pipeline\'s own parse', () => {
    it('finds what a parse of its own finds, hidden links and those in cut boilerplate included', () => {
      const html = `<html><head><base href="/root/"><title>T</title><meta name="description" content="D"><link rel="canonical" href="/c"><link rel="next" href="p2"></head>
        <body><nav><a href="/nav">Nav</a></nav><div hidden><a href="/hidden">Hidden</a></div><div style="display:none"><a href="/styled">S</a></div>
        <article><h1>Title</h1><p>Body text of the article, long enough to be the main content of this page.</p><a href="in"><img alt="Picture"></a></article>
        <svg><title>Icon</title><a href="/in-svg">svg link</a></svg><script>var a = '<a href="/not-a-link">';</script><footer><a href="mailto:x@e.test">Mail</a><a href="/foot" rel="nofollow">Foot</a></footer></body></html>`;
      const own = extractLinks(html, PAGE);
      const viaPipeline = convertHtml(html, { url: PAGE, onlyMainContent: true, links: true });
      expect(viaPipeline.links).to.deep.equal(own);
      expect(own.links.map((l) => l.url)).to.include.members(['https://e.test/nav', 'https://e.test/hidden', 'https://e.test/styled', 'https://e.test/root/in', 'https://e.test/in-svg']);
      // The conversion itself is what it was: the main content only.
      expect(viaPipeline.markdown).to.include('Body text of the article').and.not.include('Nav');
    });

    it('agrees with a parse of its own on every real page of the extraction set', () => {
      const files = extractionPageFiles().slice(0, 60);
      expect(files.length).to.be.greaterThan(10);
      for (const file of files) {
        const html = readExtractionPage(file);
        const url = `https://pages.test/${file.replace('.html.gz', '')}/index.html`;
        expect(convertHtml(html, { url, links: true }).links, file).to.deep.equal(extractLinks(html, url));
      }
    });

    it('is not read unless asked for', () => {
      expect(convertHtml('<a href="/x">x</a>', { url: PAGE }).links).to.equal(undefined);
    });
  });
});

