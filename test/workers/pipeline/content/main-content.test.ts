import { expect } from 'chai';
import { convertHtml, htmlToMarkdown } from '../../../../workers/pipeline/content/index.js';

const URL = 'https://news.example.org/2024/05/river-report';

const ARTICLE_PARAGRAPHS = [
  'The river rose by two metres overnight, flooding the lower town for the first time since 1998, and the council opened three shelters.',
  'Engineers said the new barrier held, although water found its way around the northern end, where the old wall had been left in place.',
  'Residents were allowed back in the afternoon, once the level had fallen, and the clean-up is expected to take several weeks, the mayor said.',
];

/** A news page with the furniture sites wrap around an article. */
const PAGE = `<!doctype html>
<html lang="en">
<head><title>River report</title></head>
<body class="single has-sidebar">
  <div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. <a href="/privacy">Privacy policy</a> <button>Accept all</button></div>
  <header class="site-header"><a href="/">News Example</a><nav class="main-nav"><ul><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li><li><a href="/culture">Culture</a></li></ul></nav></header>
  <div class="breadcrumbs"><a href="/">Home</a> › <a href="/local">Local</a></div>
  <main>
    <article class="post">
      <h1>River floods the lower town</h1>
      <div class="entry-content">
        ${ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n        ')}
        <p>Read more: <a href="/2023/barrier">How the barrier was built</a></p>
        <div class="share-buttons"><a href="https://facebook.com/share">Share on Facebook</a> <a href="https://x.com/share">Share on X</a></div>
      </div>
      <section class="related-posts"><h3>Related articles</h3><ul><li><a href="/a">Storm warning for the coast this weekend</a></li><li><a href="/b">Bridge closed after inspection found cracks</a></li></ul></section>
      <div id="comments" class="comments-area"><h3>3 comments</h3><ol class="comment-list"><li class="comment"><p>Terrible news for everyone living near the water, I hope the council learns something from this.</p></li></ol></div>
    </article>
  </main>
  <aside class="sidebar"><div class="widget"><h4>Most read</h4><a href="/x">Election results live</a></div><div class="newsletter">Subscribe to our newsletter for the best stories every morning.</div></aside>
  <footer class="site-footer"><p>Copyright 2024 News Example. All rights reserved.</p><a href="/imprint">Imprint</a></footer>
</body>
</html>`;

const BOILERPLATE = [
  'We use cookies',
  'Accept all',
  'World',
  'Home',
  'Read more: How the barrier was built',
  'Share on Facebook',
  'Related articles',
  'Storm warning for the coast',
  'Terrible news for everyone',
  'Most read',
  'Subscribe to our newsletter',
  'Copyright 2024',
];

describe('main content', () => {
  it('keeps the article and removes navigation, banners, share widgets, related links, comments, sidebar and footer', () => {
    const { markdown, text } = convertHtml(PAGE, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) {
      expect(text).to.include(paragraph);
      expect(markdown).to.include(paragraph);
    }
    for (const furniture of BOILERPLATE) {
      expect(text, furniture).to.not.include(furniture);
      expect(markdown, furniture).to.not.include(furniture);
    }
  });

  it('is the default; onlyMainContent: false converts the whole page', () => {
    const main = htmlToMarkdown(PAGE, { url: URL });
    const full = htmlToMarkdown(PAGE, { url: URL, onlyMainContent: false });
    expect(htmlToMarkdown(PAGE, { url: URL, onlyMainContent: true })).to.equal(main);
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(full).to.include(paragraph);
    for (const furniture of ['We use cookies', 'Share on Facebook', 'Storm warning for the coast', 'Terrible news for everyone', 'Subscribe to our newsletter', 'Copyright 2024']) {
      expect(full, furniture).to.include(furniture);
    }
    expect(full).to.include('[World](https://news.example.org/world)');
    expect(full.length).to.be.greaterThan(main.length);
  });

  it('does not let a furniture word on a wrapper cut the article inside it', () => {
    const html = `<html><body><div class="page-wrapper with-sidebar-right"><div class="article-body">${ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}</div></div><div class="sidebar"><a href="/1">Elsewhere one</a><a href="/2">Elsewhere two</a></div></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.not.include('Elsewhere');
  });

  it('joins content split over sibling blocks and drops a teaser list between them', () => {
    const blocks = ARTICLE_PARAGRAPHS.map((p) => `<div class="text-block"><div class="inner"><p>${p}</p><p>${p.toUpperCase()}</p></div></div>`);
    const teasers = '<div class="teasers"><a href="/t1">Teaser one title here</a><a href="/t2">Teaser two title here</a><a href="/t3">Teaser three title</a></div>';
    const html = `<html><body><div id="content">${blocks[0]}${teasers}${blocks[1]}${blocks[2]}</div></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.not.include('Teaser');
  });

  it('falls back to the page when nothing looks like an article', () => {
    const html = '<html><body><p>Short note.</p></body></html>';
    expect(htmlToMarkdown(html, { url: URL })).to.equal('Short note.');
  });
});
