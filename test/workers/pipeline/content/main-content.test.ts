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

function paragraphs(): string {
  return ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('');
}

/** The article's paragraphs are all in the output, and none of the furniture is. */
function expectArticleWithout(output: string, furniture: string[]): void {
  for (const paragraph of ARTICLE_PARAGRAPHS) expect(output).to.include(paragraph);
  for (const words of furniture) expect(output, words).to.not.include(words);
}

/** The article followed by a sentence of prose and the given lines: in text and Markdown, the `cut` words are gone and the prose stays. */
function expectLinesCut(lines: string[], cut: string[], prose: string): void {
  const html = `<html><body><article><h1>River floods the lower town</h1>${paragraphs()}<p>${prose}</p>${lines.join('')}</article></body></html>`;
  const { text, markdown } = convertHtml(html, { url: URL });
  for (const output of [text, markdown]) {
    expectArticleWithout(output, cut);
    expect(output).to.include(prose);
  }
}

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

  it('leaves the consent banners a whole page names as such out with removeCookieBanners, and nothing else', () => {
    const full = htmlToMarkdown(PAGE, { url: URL, onlyMainContent: false, removeCookieBanners: true });
    expect(full).not.to.include('We use cookies');
    for (const kept of [...ARTICLE_PARAGRAPHS, 'Share on Facebook', 'Subscribe to our newsletter', 'Copyright 2024']) expect(full, kept).to.include(kept);
    const page = (body: string) => `<html><body><p>${ARTICLE_PARAGRAPHS[0]}</p>${body}</body></html>`;
    const banners = [
      '<div id="CybotCookiebotDialog"><p>This website uses cookies.</p><button>Allow all</button></div>',
      '<div class="theme cc-window"><span>Cookies help us.</span></div>',
      '<section role="dialog" aria-label="Cookie preferences"><p>Choose what we store.</p></section>',
      '<aside id="site-cookie-consent-box"><p>Consent needed.</p></aside>',
    ];
    for (const banner of banners) {
      const markdown = htmlToMarkdown(page(banner), { url: URL, onlyMainContent: false, removeCookieBanners: true });
      expect(markdown, banner).to.include(ARTICLE_PARAGRAPHS[0]).and.not.match(/cookies help|this website uses|choose what|consent needed/i);
    }
    // Named for cookies but no banner: a recipe list, and anything as long as a page section.
    const recipes = '<ul class="cookies-list"><li>Brown butter cookies</li></ul>';
    expect(htmlToMarkdown(page(recipes), { url: URL, onlyMainContent: false, removeCookieBanners: true })).to.include('Brown butter cookies');
    const long = `<div class="cookie-banner-story"><p>${'The harbour bakery sold out of biscuits again. '.repeat(80)}</p></div>`;
    expect(htmlToMarkdown(page(long), { url: URL, onlyMainContent: false, removeCookieBanners: true })).to.include('harbour bakery');
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

  it('drops image captions and credits but keeps the picture', () => {
    const figure = '<figure><img src="/flood.jpg" alt="Water in the market square"><figcaption>Water in the market square. Photo: J. Doe</figcaption></figure>';
    const credit = '<div class="image-credit">Picture agency / Jane Roe</div>';
    const html = `<html><body><article>${paragraphs()}${figure}${credit}</article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    for (const output of [text, markdown]) {
      expect(output).to.not.include('Photo: J. Doe');
      expect(output).to.not.include('Jane Roe');
    }
    expect(markdown).to.include('](https://news.example.org/flood.jpg)');
    // The alt text repeated the cut caption, so the image comes without it.
    expect(markdown).to.not.include('Water in the market square');
  });

  it('drops the alt text repeating a cut caption when the figure sits in a long section', () => {
    const figure = '<figure><picture><source srcset="/flood-s.jpg" media="(max-width: 360px)"><img src="/flood.jpg" alt="Water in the market square."></picture><figcaption>Water in the market square.</figcaption></figure>';
    // Far more than a figure's worth of elements around it: the picture must be found in the figure itself.
    const emphasis = Array.from({ length: 40 }, (_, i) => `<p>Volunteers filled <b>sandbags</b> in <i>street ${i + 1}</i> until the evening.</p>`).join('');
    const html = `<html><body><article><section>${paragraphs()}${figure}${emphasis}</section></article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(markdown).to.include('](https://news.example.org/flood.jpg)');
    for (const output of [text, markdown]) expect(output).to.not.include('Water in the market square');
  });

  it('keeps a long caption that reads as prose', () => {
    const long = 'The flooded market square seen from the church tower at noon, '.repeat(8);
    const html = `<html><body><article>${paragraphs()}<figure><img src="/a.jpg"><figcaption>${long}</figcaption></figure></article></body></html>`;
    expect(convertHtml(html, { url: URL }).text).to.include(long.trim());
  });

  it('drops author boxes, rating forms and headings left without a section', () => {
    const author = '<div class="authorbox"><p>Jane Roe writes about rivers and the people who live beside them, for us since 2009.</p></div>';
    const rating = '<form><fieldset><legend>Was this article useful?</legend><label>Yes</label></fieldset></form>';
    const related = '<h3>More on this topic</h3><ul><li><a href="/x">Storm warning for the coast this weekend</a></li><li><a href="/y">Bridge closed after inspection</a></li></ul>';
    const html = `<html><body><article><h1>River floods the lower town</h1>${paragraphs()}${author}${rating}${related}</article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.include('River floods the lower town');
    for (const furniture of ['Jane Roe', 'Was this article useful', 'More on this topic', 'Storm warning']) expect(text, furniture).to.not.include(furniture);
  });

  it("drops the author's address block from the article, but keeps an address that is most of the page", () => {
    const address = '<address>Written by Jane Roe, River Desk, jane.roe@example.com, +44 20 7946 0000</address>';
    const html = `<html><body><article><h1>River floods the lower town</h1>${paragraphs()}${address}</article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.not.include('jane.roe@example.com');
    const contact = '<html><body><main><h1>Contact</h1><address>River Gazette, 12 Quay Street, Lowtown LT1 2AB. Newsroom: +44 20 7946 0000, news@example.com</address></main></body></html>';
    expect(convertHtml(contact, { url: URL }).text).to.include('12 Quay Street');
  });

  it('keeps a heading that has content under it, and a long heading used as prose', () => {
    const prose = 'And then the water came back, higher than anyone in the town remembered it.';
    const html = `<html><body><article><h2>What happened</h2>${paragraphs()}<h2>${prose}</h2></article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expect(text).to.include('What happened');
    expect(text).to.include(prose);
  });

  it('joins the standfirst from the article header, even under a teaser class', () => {
    const lead = 'Three shelters opened overnight as the river reached a level last seen a quarter of a century ago.';
    const html = `<html><body><div class="post"><div class="post-header"><h1>River floods the lower town</h1><p class="teaser">${lead}</p></div><div class="post-body">${paragraphs()}</div></div><aside><a href="/1">Elsewhere one</a></aside></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expect(text).to.include(lead);
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.not.include('Elsewhere');
  });

  it('joins the paragraph before the article that is the summary of the page description, even in the site header', () => {
    const summary = 'Three shelters opened overnight as the river rose by two metres and flooded the lower town.';
    const other = 'News Example brings you the stories of the valley every day since 1921, in print and online.';
    const page = (description: string): string =>
      `<html><head><meta name="description" content="${description}"></head><body>` +
      `<header><h1>River floods the lower town</h1><p>${summary}</p><p>${other}</p></header>` +
      `<div class="body">${paragraphs()}</div></body></html>`;
    const { text, markdown } = convertHtml(page(summary), { url: URL });
    for (const output of [text, markdown]) {
      expectArticleWithout(output, [other]);
      expect(output).to.include(summary);
      expect(output.indexOf(summary)).to.be.below(output.indexOf(ARTICLE_PARAGRAPHS[0]!));
    }
    // A description cut short with an ellipsis still names its paragraph; one the page does not show names none.
    expect(convertHtml(page(`${summary.slice(0, 80)}...`), { url: URL }).text).to.include(summary);
    expectArticleWithout(convertHtml(page('A summary of the report that stands nowhere on the page, only in its head.'), { url: URL }).text, [summary, other]);
  });

  it('keeps the paragraph inside the article that is the page description, but not what else its cut box holds', () => {
    const summary = 'Three shelters opened overnight as the river rose by two metres and flooded the lower town.';
    const box = `<div class="teaser-box"><p>${summary}</p><p><a href="/2023/barrier">How the barrier was built</a></p></div>`;
    const html = `<html><head><meta property="og:description" content="${summary}"></head><body><article><h1>River floods the lower town</h1>${box}${paragraphs()}</article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const output of [text, markdown]) {
      expectArticleWithout(output, ['How the barrier was built']);
      expect(output).to.include(summary);
    }
  });

  it('reads a compound class name by its last word, and does not let a short named block win', () => {
    // `entry__meta` and `articleMeta` are parts of an article, not the article; a 40-character `article-text` is no article either.
    const html = `<html><body><div class="entry"><div class="entry__meta">Updated 2 May</div><div class="articleMeta">By the news desk</div><div class="article-text">Photo gallery: the town at night</div><div class="copy">${paragraphs()}</div></div></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(text).to.not.include('Updated 2 May');
    expect(text).to.not.include('By the news desk');
  });

  it('keeps a table whatever a weak class word says about it', () => {
    const table = '<table class="table-header"><tr><th>Level</th><th>Date</th></tr><tr><td>4.2 m</td><td>May 2</td></tr></table>';
    const html = `<html><body><article>${paragraphs()}${table}</article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expect(text).to.include('4.2 m');
  });

  it('cuts prompt, credit and date lines written as ordinary paragraphs, in several languages, but keeps prose using the same words', () => {
    const prose = 'The council said it would send a newsletter to every household, and share the cost of repairs with the county.';
    const lines = [
      '<p>Möchten Sie den Artikel teilen?</p>',
      '<p><em>(Quelle: Landesregierung)</em></p>',
      '<p>Foto: Max Muster</p>',
      '<p>Publié le 4 mai 2022</p>',
      '<h3>También te puede interesar</h3>',
      '<p>Schreibe einen Kommentar</p>',
    ];
    expectLinesCut(lines, ['Artikel teilen', 'Landesregierung', 'Max Muster', 'Publié le', 'te puede interesar', 'einen Kommentar'], prose);
  });

  it('cuts app, channel, letter, audio, next-article, advertising, category, permalink, contact and figure-caption lines, but keeps prose using the same words', () => {
    const prose = 'Residents were told to download the county app, which sends flood warnings, before the next storm arrives.';
    const lines = [
      '<p>For the latest stories download the Harbour News app for iOS and Android.</p>',
      '<p>¡Mira lo que tiene nuestro canal de YouTube!</p>',
      '<p>Submit your letter to the editor via this form</p>',
      '<p><strong>ESCUCHA ESTA NOTA AQUÍ</strong></p>',
      '<h4>Zum Weiterlesen:</h4>',
      '<p>Vorschau auf den nächsten Artikel</p>',
      '<p>*Werbung. Dieser Beitrag enthält Werbung für Gummistiefel.</p>',
      '<p>Kategorie: Hochwasserlage</p>',
      '<p>Permalink https://example.org/p/ab12</p>',
      '<p><strong>Pressekontakt:</strong></p>',
      '<p>Abbildung 2: Pegelstände am Hafen</p>',
    ];
    expectLinesCut(lines, ['Harbour News app', 'canal de YouTube', 'Submit your letter', 'ESCUCHA ESTA NOTA', 'Zum Weiterlesen', 'nächsten Artikel', 'Gummistiefel', 'Hochwasserlage', 'example.org/p/ab12', 'Pressekontakt', 'Pegelstände am Hafen'], prose);
  });

  it('cuts a line that is nothing but a date, but keeps dates in list items, table cells and sentences', () => {
    const dates = ['12.05.2022, 08:30 Uhr', 'Mon, May 4th, 2022', '4 de mayo de 2022', '2022-05-04'];
    const list = '<ul><li>03.06.2022</li><li>Opening of the new barrier</li></ul>';
    const table = '<table><tr><td>Level</td><td>4.2 m</td></tr><tr><td>Measured</td><td>04.05.2022</td></tr></table>';
    const sentence = '<p>On 4 May 2022 the gauge at the bridge read 4.2 m.</p>';
    const html = `<html><body><article><h1>River floods the lower town</h1>${dates.map((d) => `<div>${d}</div>`).join('')}${paragraphs()}${list}${table}${sentence}</article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expectArticleWithout(text, dates);
    for (const kept of ['03.06.2022', '04.05.2022', 'On 4 May 2022 the gauge']) expect(text).to.include(kept);
  });

  it('cuts a prompt line out of a longer block by its elements, and an offer with its small box', () => {
    const back = '<a href="/press">back to the list</a>';
    const offer = '<div class="box-3"><h4>Stay informed</h4><p>Every Friday, the week on the river in five minutes.</p><p><strong>Sign up for our newsletter</strong></p></div>';
    const html = `<html><body><article><div>${paragraphs()}${back}</div>${offer}<p>${'The gauges are read every hour and published on the council site, together with the forecast. '.repeat(3)}</p></article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expectArticleWithout(text, ['back to the list', 'Stay informed', 'the week on the river', 'Sign up']);
    expect(text).to.include('The gauges are read every hour');
  });

  it('cuts a caption box closed by a picture credit, and the alt text repeating it', () => {
    const visual = '<div class="visual"><a href="/big.jpg"><img src="/gauge.jpg" alt="The gauge at the old bridge at noon."></a><div class="description"><strong>The gauge at the old bridge at noon.</strong><div class="box"><span>© Jane Roe / Agency</span></div></div></div>';
    const html = `<html><body><article>${paragraphs()}${visual}</article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const output of [text, markdown]) expectArticleWithout(output, ['Jane Roe', 'old bridge at noon']);
    expect(markdown).to.include('](https://news.example.org/gauge.jpg)');
  });

  it('cuts teaser cards set inside the article but keeps a picture that links to its own image file', () => {
    const card = '<div class="snippet"><h3><a href="/stars/summer">Summer on the islands</a></h3><a href="/stars/summer"><img src="/summer.jpg"></a><div>Holiday time, and the whole family went along. <a href="/stars/summer">Read on</a></div></div>';
    const own = '<p><a href="/full/flood.jpg"><img src="/flood.jpg" alt="Flooded square"></a></p>';
    const html = `<html><body><article>${paragraphs()}${card}${own}<p>${ARTICLE_PARAGRAPHS[0]!.replace('river', 'stream')}</p></article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const furniture of ['Summer on the islands', 'Holiday time', 'Read on']) expect(text, furniture).to.not.include(furniture);
    expect(markdown).to.include('(https://news.example.org/flood.jpg)');
  });

  it('keeps linked items of a list of prose and linked rows of a table', () => {
    const list = '<ul><li>Two shelters opened in the school and the church hall.</li><li><a href="/tv">Report on the evening news</a></li><li>The third shelter opened at the sports ground.</li></ul>';
    const table = '<table><tr><td>Flour</td><td>200 g</td></tr><tr><td>Butter or margarine</td><td>125 g</td></tr><tr><td><a href="/glossary/mandarins">Mandarins</a></td><td>2 tins</td></tr></table>';
    const html = `<html><body><article>${paragraphs()}${list}${table}</article></body></html>`;
    const text = convertHtml(html, { url: URL }).text;
    expect(text).to.include('Report on the evening news');
    expect(text).to.include('Mandarins');
  });

  it('reads the post from its noscript fallback when the page shows next to nothing else, and never otherwise', () => {
    const fallback = `<noscript><h1>River floods the lower town</h1>${paragraphs()}${paragraphs()}</noscript>`;
    const scripted = `<html><body><div class="app">Loading…</div>${fallback}</body></html>`;
    const { text, html } = convertHtml(scripted, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    expect(html).to.not.include('noscript');
    const withArticle = `<html><body><article>${paragraphs()}<noscript><p>Please enable JavaScript to see the comments, the map and the gallery of this report.</p></noscript></article></body></html>`;
    expect(convertHtml(withArticle, { url: URL }).text).to.not.include('enable JavaScript');
    expect(convertHtml(scripted, { url: URL, onlyMainContent: false }).text).to.not.include(ARTICLE_PARAGRAPHS[0]);
  });

  it('stays linear on pages built to defeat the line, card and caption rules', () => {
    const n = 20_000;
    const hostile = [
      `<div>${'<a href="/x"><img src="/i.jpg"></a><a href="/x">Read on</a>'.repeat(n)}</div>`,
      `<div>${'<span>Share</span><br>'.repeat(n)}</div>`,
      `<div>${'<div><img src="/i.jpg"><div>Caption <span>© Agency</span></div></div>'.repeat(n)}</div>`,
      `${'<div><p>Sign up for our newsletter</p>'.repeat(2_000)}${'</div>'.repeat(2_000)}`,
    ];
    for (const body of hostile) {
      const started = performance.now();
      convertHtml(`<html><body><article>${paragraphs()}${body}</article></body></html>`, { url: URL }).markdown;
      // Linear work on these pages takes well under a second; a pass per element over its neighbours would take minutes.
      expect(performance.now() - started, body.slice(0, 60)).to.be.below(5_000);
    }
  });

  it('finds an article set entirely inside furniture by its tags, rather than answering nothing', () => {
    // The site's links outweigh the article, so the aside is not the bulk of the page.
    const links = (from: number) => Array.from({ length: 20 }, (_, i) => `<li><a href="/section/${from + i}">Regional section number ${from + i}</a></li>`).join('');
    const nav = `<nav><ul><li><a href="/">Home</a></li><li><a href="/politics">Politics</a></li>${links(0)}</ul></nav>`;
    const article = `<aside class="page-direct-content"><section class="detail"><header class="functions"><h1>Floods in the lower town</h1><div class="teaser-detail">${paragraphs()}</div></header></section></aside>`;
    const footer = `<footer><ul><li><a href="/imprint">Imprint</a></li><li><a href="/privacy">Privacy</a></li>${links(20)}</ul></footer>`;
    const { text } = convertHtml(`<html><head><title>Floods</title></head><body>${nav}${article}${footer}</body></html>`, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).to.include(paragraph);
    for (const furniture of ['Politics', 'Imprint']) expect(text).to.not.include(furniture);
  });

  it('cuts membership, app, follow, comment-login and "this way to" lines, but keeps prose using the same words', () => {
    const prose = 'Members of the rowing club, who follow the river on Twitter and on the gauge site, were the first to raise the alarm.';
    const lines = [
      '<p>Werden Sie Mitglied bei <strong>Flusswacht</strong> und erhalten Sie exklusive Angebote!</p>',
      '<p>Get the latest news straight to your phone with the Harbour News app.</p>',
      '<p>Follow The Harbour Times on Instagram</p>',
      '<p>You must be logged in to post a comment.</p>',
      '<p>Hier geht es zur <a href="/pegel">Pegelkarte</a></p>',
    ];
    expectLinesCut(lines, ['Flusswacht', 'straight to your phone', 'Harbour Times', 'logged in to post', 'Pegelkarte'], prose);
  });

  it('cuts an offer set in one item of a list without the other items', () => {
    const items = ['Sandbags are handed out at the fire station until midnight.', 'The ferry runs again from Thursday morning.'];
    const list = `<ul><li>${items[0]}</li><li>${items[1]}</li><li>Keep clear of the river banks.<p>Werden Sie Mitglied und erhalten Sie exklusive Angebote!</p></li></ul>`;
    const text = convertHtml(`<html><body><article><h1>River floods the lower town</h1>${paragraphs()}${list}</article></body></html>`, { url: URL }).text;
    expectArticleWithout(text, ['Werden Sie Mitglied']);
    for (const item of items) expect(text).to.include(item);
  });

  it('cuts embedded social posts and calls to action from the article', () => {
    const tweet = '<blockquote class="twitter-tweet"><p lang="en">The barrier held tonight, thanks to everyone who helped. <a href="https://t.co/x">pic.twitter.com/x</a></p>&mdash; Harbour Council (@harbour) <a href="https://twitter.com/harbour/status/1">May 4, 2024</a></blockquote>';
    const cta = '<span class="hs-cta-wrapper"><a href="https://cta.example.com/1"><img src="/cta.png" alt="Download the flood guide"></a></span>';
    const html = `<html><body><article><h1>River floods the lower town</h1>${paragraphs()}${tweet}${cta}</article></body></html>`;
    const { text, markdown } = convertHtml(html, { url: URL });
    for (const output of [text, markdown]) expectArticleWithout(output, ['The barrier held tonight', '@harbour', 'Download the flood guide']);
  });

  it("reads the article from the page's JSON-LD articleBody when the visible page is next to nothing beside it", () => {
    const more = [
      'The council will publish a full report on the flood in the autumn, with the gauge readings of every hour and the cost of the repairs.',
      'Insurers have opened a hotline for the lower town, and say that claims made before the end of the month will be paid within six weeks.',
    ];
    const body = [...ARTICLE_PARAGRAPHS, ...more].join('\n\n');
    const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
    const article = { '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'River floods the lower town', articleBody: body };
    const frame = (head: string, main: string) =>
      `<html><head><title>River floods the lower town</title>${head}</head><body><nav><a href="/">Home</a> <a href="/local">Local</a></nav><div id="app"><h1>River floods the lower town</h1>${main}</div></body></html>`;
    const scripted = frame(ld({ '@graph': [{ '@type': 'WebPage', name: 'x' }, article] }), '<p>Loading the article…</p>');
    const { text, markdown, title } = convertHtml(scripted, { url: URL });
    for (const paragraph of ARTICLE_PARAGRAPHS) {
      expect(text).to.include(paragraph);
      expect(markdown).to.include(paragraph);
    }
    expect(markdown).to.include(`${ARTICLE_PARAGRAPHS[0]}\n\n${ARTICLE_PARAGRAPHS[1]}`);
    expect(text).to.not.include('Loading the article');
    expect(title).to.equal('River floods the lower town');
    // Entities in a plain body read as their characters; a bare ampersand and a bracket stay as written.
    const entities = convertHtml(frame(ld({ ...article, articleBody: `${body}\n\nThe mayor&#8217;s office thanked AT&T &amp; the <b> crews.` }), ''), { url: URL }).text;
    expect(entities).to.include('The mayor’s office thanked AT&T & the <b> crews.');
    // A body written as markup is read as markup.
    const marked = convertHtml(frame(ld({ ...article, articleBody: `<p>${ARTICLE_PARAGRAPHS.join('</p><p>')}</p><p>${more[0]}</p><p><strong>${more[1]}</strong></p>` }), ''), { url: URL });
    expect(marked.markdown).to.include(`${ARTICLE_PARAGRAPHS[0]}\n\n${ARTICLE_PARAGRAPHS[1]}`);
    expect(marked.markdown).to.include('**');
    // The visible article wins when it is there; so does the page when several articles state a body, or the script is no JSON.
    const visible = convertHtml(frame(ld(article), paragraphs()), { url: URL }).text;
    expect(visible).to.include(ARTICLE_PARAGRAPHS[2]).and.not.include(more[0]);
    const listing = frame(ld({ '@type': 'ItemList', itemListElement: [article, { ...article, articleBody: `${body} Second story.` }] }), '<p>Loading the article…</p>');
    expect(convertHtml(listing, { url: URL }).text).to.not.include(ARTICLE_PARAGRAPHS[0]);
    const broken = frame(`<script type="application/ld+json">{"articleBody": "${ARTICLE_PARAGRAPHS[0]}",</script>`, '<p>Loading the article…</p>');
    expect(convertHtml(broken, { url: URL }).text).to.include('Loading the article');
    // The whole page is the page as it is.
    expect(convertHtml(scripted, { url: URL, onlyMainContent: false }).text).to.not.include(ARTICLE_PARAGRAPHS[0]);
  });

  it('falls back to the page when nothing looks like an article', () => {
    const html = '<html><body><p>Short note.</p></body></html>';
    expect(htmlToMarkdown(html, { url: URL })).to.equal('Short note.');
  });
});
