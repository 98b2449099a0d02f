import { expect } from 'chai';
import { convertHtml, convertMarkdown, convertText, extractPageMetadata, htmlToMarkdown } from '../../../../workers/pipeline/content/index.js';

const URL = 'https://shop.example.com/guides/tea/';

const PAGE = `<!doctype html>
<html lang="en-GB">
<head>
  <title> Brewing  green tea </title>
  <meta name="description" content="How to brew green tea well.">
  <meta name="keywords" content="tea, green tea">
  <meta name="author" content="A. Leaf">
  <meta property="og:title" content="Brewing green tea (OG)">
  <meta property="og:image" content="/img/tea.jpg">
  <meta property="og:site_name" content="Tea Shop">
  <meta property="og:type" content="article">
  <meta property="article:published_time" content="2024-03-01T08:00:00Z">
  <link rel="canonical" href="/guides/tea/green">
</head>
<body>
  <article>
    <h2>Water</h2>
    <p onclick="track()" class="lead" style="color:red">Use water at <strong>80 °C</strong>, never boiling, or the leaves turn <a href="bitter.html?utm_source=mail&amp;id=3">bitter</a>.</p>
    <ul><li>Two grams per cup</li><li>Two minutes</li></ul>
    <p>Steeping longer releases more tannin, which makes the cup astringent; a second infusion from the same leaves is often better than the first.</p>
    <img src="/px.gif" width="1" height="1" alt="">
    <pre><code class="language-text">temp = 80</code></pre>
    <script>console.log('x')</script>
  </article>
</body>
</html>`;

describe('text and HTML outputs', () => {
  it('writes plain text: paragraphs apart, list items on their own lines, no markup', () => {
    const { text } = convertHtml(PAGE, { url: URL });
    expect(text).to.include('Water\n\nUse water at 80 °C, never boiling, or the leaves turn bitter.\n\nTwo grams per cup\nTwo minutes\n\nSteeping longer');
    expect(text).to.not.match(/[*#[\]]|\]\(|<\w/);
    expect(text).to.include('temp = 80');
  });

  it('writes cleaned HTML: no scripts, handlers, styles or classes; absolute links without tracking parameters; no pixels', () => {
    const { html } = convertHtml(PAGE, { url: URL });
    expect(html).to.include('<h2>Water</h2>');
    expect(html).to.include('<p>Use water at <strong>80 °C</strong>');
    expect(html).to.include('<a href="https://shop.example.com/guides/tea/bitter.html?id=3">bitter</a>');
    expect(html).to.include('<li>Two grams per cup</li>');
    expect(html).to.include('<pre><code>temp = 80</code></pre>');
    expect(html).to.not.match(/onclick|style=|class="lead"|<script|console\.log|px\.gif/);
  });

  it('gives the same Markdown from convertHtml as from htmlToMarkdown', () => {
    expect(convertHtml(PAGE, { url: URL }).markdown).to.equal(htmlToMarkdown(PAGE, { url: URL }));
    expect(convertHtml(PAGE, { url: URL, onlyMainContent: false }).markdown).to.equal(htmlToMarkdown(PAGE, { url: URL, onlyMainContent: false }));
  });

  it('keeps the code language as a language- class in the HTML', () => {
    const { html } = convertHtml('<html><body><pre><code class="lang-js hljs">x()</code></pre></body></html>', { url: URL, onlyMainContent: false });
    expect(html).to.equal('<html><body><pre><code class="language-js">x()</code></pre></body></html>');
  });

  it('escapes text and attribute values in the HTML', () => {
    const { html } = convertHtml('<html><body><p title="a&quot;b">1 &lt; 2 &amp; <a href="/q?a=1&amp;b=2">q</a></p></body></html>', {
      url: URL,
      onlyMainContent: false,
    });
    expect(html).to.include('<p>1 &lt; 2 &amp; <a href="https://shop.example.com/q?a=1&amp;b=2">q</a></p>');
  });
});

describe('page metadata', () => {
  it('reads the title and the head metadata, with URLs made absolute', () => {
    const { title, metadata } = extractPageMetadata(PAGE, URL);
    expect(title).to.equal('Brewing green tea');
    expect(metadata).to.deep.include({
      title: 'Brewing green tea',
      description: 'How to brew green tea well.',
      keywords: 'tea, green tea',
      author: 'A. Leaf',
      language: 'en-GB',
      canonicalUrl: 'https://shop.example.com/guides/tea/green',
      ogTitle: 'Brewing green tea (OG)',
      ogImage: 'https://shop.example.com/img/tea.jpg',
      ogSiteName: 'Tea Shop',
      ogType: 'article',
      publishedTime: '2024-03-01T08:00:00Z',
    });
  });

  it('falls back to og:title and a <time> marked as the publication date', () => {
    const html = '<html><head><meta property="og:title" content="Only OG"></head><body><time itemprop="datePublished" datetime="2020-01-02">2 Jan</time></body></html>';
    const { title, metadata } = extractPageMetadata(html, URL);
    expect(title).to.equal('Only OG');
    expect(metadata.publishedTime).to.equal('2020-01-02');
    expect(metadata).to.not.have.property('description');
  });

  it('is the same from convertHtml', () => {
    const result = convertHtml(PAGE, { url: URL });
    expect(result.title).to.equal('Brewing green tea');
    expect(result.metadata).to.deep.equal(extractPageMetadata(PAGE, URL).metadata);
  });

  it('ignores a <title> inside inline SVG', () => {
    expect(extractPageMetadata('<html><body><svg><title>icon</title></svg><title>Real</title></body></html>', URL).title).to.equal('Real');
  });
});

describe('text and Markdown documents', () => {
  it('convertText keeps text as text and Markdown, and wraps paragraphs in HTML', () => {
    const result = convertText('First line\r\nsecond <line>\n\n\n\nNext paragraph  \n');
    expect(result.text).to.equal('First line\nsecond <line>\n\nNext paragraph');
    expect(result.markdown).to.equal(result.text);
    expect(result.html).to.equal('<p>First line<br>second &lt;line&gt;</p>\n<p>Next paragraph</p>');
    expect(result.title).to.equal('First line');
  });

  it('convertMarkdown renders GFM to clean HTML with absolute links, and reads it back as text', () => {
    const md = '# Guide\n\nSee [the docs](../docs/) and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>\n';
    const result = convertMarkdown(md, 'https://example.com/guide/index.md');
    expect(result.markdown).to.equal(md.trim());
    expect(result.title).to.equal('Guide');
    expect(result.html).to.include('<h1>Guide</h1>');
    expect(result.html).to.include('<a href="https://example.com/docs/">the docs</a>');
    expect(result.html).to.include('<td>1</td>');
    expect(result.html).to.not.include('script');
    expect(result.text).to.include('Guide\n\nSee the docs and code.');
  });
});
