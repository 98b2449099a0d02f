import { expect } from 'chai';
import { htmlToMarkdown } from '../../../../workers/pipeline/content/index.js';

const URL = 'https://example.com/blog/post.html';

/** Converts a body fragment as a full page, so no main-content selection interferes. */
function md(body: string, head = ''): string {
  return htmlToMarkdown(`<html><head>${head}</head><body>${body}</body></html>`, { url: URL, onlyMainContent: false });
}

describe('htmlToMarkdown: GitHub-Flavoured Markdown fidelity', () => {
  it('writes ATX headings and separates blocks with blank lines', () => {
    expect(md('<h1>Title</h1><p>One</p><h3>Sub <em>part</em></h3><p>Two</p>')).to.equal('# Title\n\nOne\n\n### Sub *part*\n\nTwo');
  });

  it('collapses whitespace as a browser does, across inline elements', () => {
    expect(md('<p>  a\n\n   b <span> c </span>  <b>d</b>\te </p>')).to.equal('a b c **d** e');
  });

  it('writes emphasis, strong and strikethrough, moving edge spaces outside the markers', () => {
    expect(md('<p>x<em> it </em>y <strong>bold </strong>z <del>gone</del> <s>s</s></p>')).to.equal('x *it* y **bold** z ~~gone~~ ~~s~~');
  });

  it('drops emphasis that holds nothing', () => {
    expect(md('<p>a <b> </b>b<i></i></p>')).to.equal('a b');
  });

  it('keeps a paragraph of thousands of links exact, spaces around each link included', () => {
    const count = 3_000;
    // The last link opens right after another closes: its leading space still separates them.
    const out = md(`<p>${'word <a href="/x">link</a> '.repeat(count)}<a href="/x">link</a><a href="/y"> spaced</a>end</p>`);
    expect(out).to.equal(`${'word [link](https://example.com/x) '.repeat(count)}[link](https://example.com/x) [spaced](https://example.com/y)end`);
  });

  it('indents at most 32 list levels, writing only the marker for deeper ones so output stays linear', () => {
    const levels = 200;
    const out = md(`${'<ul><li>item'.repeat(levels)}${'</li></ul>'.repeat(levels)}`);
    const lines = out.split('\n');
    expect(lines.filter((l) => l.trim() === '- item')).to.have.length(levels);
    expect(Math.max(...lines.map((l) => l.length))).to.be.at.most(32 * 2 + 8);
    expect(lines[1]).to.equal('  - item');
  });

  it('nests unordered lists with indentation matching the marker', () => {
    const html = '<ul><li>One<ul><li>Two<ul><li>Three</li></ul></li></ul></li><li>Four</li></ul>';
    expect(md(html)).to.equal('- One\n  - Two\n    - Three\n- Four');
  });

  it('numbers ordered lists from their start attribute and indents nested content by the marker width', () => {
    const html = '<ol start="9"><li>Nine<ul><li>inner</li></ul></li><li>Ten<ol><li>a</li><li>b</li></ol></li></ol>';
    expect(md(html)).to.equal('9. Nine\n   - inner\n10. Ten\n    1. a\n    2. b');
  });

  it('keeps paragraphs inside a list item within the item (a loose list)', () => {
    expect(md('<ol><li><p>First</p><p>More</p></li><li>Second</li></ol>')).to.equal('1. First\n\n   More\n\n2. Second');
  });

  it('writes GFM pipe tables with a header row and escaped pipes', () => {
    const html = '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td><b>1</b></td></tr><tr><td>c</td><td>2</td></tr></tbody></table>';
    expect(md(html)).to.equal('| Name | Value |\n| --- | --- |\n| a\\|b | **1** |\n| c | 2 |');
  });

  it('uses the first row as header when a table has none, and pads short rows and colspans', () => {
    const html = '<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td colspan="2">wide</td><td>x</td></tr><tr><td>1</td></tr></table>';
    expect(md(html)).to.equal('| a | b | c |\n| --- | --- | --- |\n|  | wide | x |\n| 1 |  |  |');
  });

  it('writes code blocks inside table cells as inline code and carries on after them', () => {
    const html = '<table><tr><th>Call</th><th>Note</th></tr><tr><td><pre>f(a*b)</pre></td><td><a href="/n">see *this*</a></td></tr></table>';
    expect(md(html)).to.equal('| Call | Note |\n| --- | --- |\n| `f(a*b)` | [see \\*this\\*](https://example.com/n) |');
  });

  it('renders layout tables (nested tables, long cells) as plain blocks, not pipe tables', () => {
    const long = 'word '.repeat(120);
    const html = `<table><tr><td><p>${long}</p></td><td>side</td></tr></table>`;
    const out = md(html);
    expect(out).to.not.include('|');
    expect(out).to.include('side');
  });

  it('fences code blocks, keeping whitespace and the language from language-x on code', () => {
    const html = '<pre><code class="language-python">def f():\n    return  1\n</code></pre>';
    expect(md(html)).to.equal('```python\ndef f():\n    return  1\n```');
  });

  it('takes the language from lang-x and highlight-x on pre or its wrapper', () => {
    expect(md('<pre class="lang-rust">let x = 1;</pre>')).to.equal('```rust\nlet x = 1;\n```');
    expect(md('<div class="highlight-go notranslate"><div class="highlight"><pre>x := 1</pre></div></div>')).to.equal('```go\nx := 1\n```');
  });

  it('writes code set one line per block as lines, in time linear in its length', () => {
    expect(md('<pre><div>a = 1</div><div>b = 2</div>c<br>d</pre>')).to.equal('```\na = 1\nb = 2\nc\nd\n```');
    const lines = 20_000;
    const body = `<pre>${Array.from({ length: lines }, (_, i) => `<div class="line"><span>const v${i} = ${i};</span></div>`).join('')}</pre>`;
    const started = performance.now();
    const out = md(body);
    expect(performance.now() - started).to.be.below(3_000);
    expect(out.split('\n')).to.have.length(lines + 2);
    expect(out).to.contain('\nconst v19999 = 19999;\n```');
  });

  it('lengthens the fence when the code holds backtick fences', () => {
    expect(md('<pre><code>```\ninner\n```</code></pre>')).to.equal('````\n```\ninner\n```\n````');
  });

  it('does not escape Markdown characters inside code', () => {
    expect(md('<pre>a * b _c_ [d]</pre>')).to.equal('```\na * b _c_ [d]\n```');
    expect(md('<p>Use <code>a*b_c</code> here</p>')).to.equal('Use `a*b_c` here');
  });

  it('fences inline code containing backticks with a longer run', () => {
    expect(md('<p><code>a`b</code> and <code>`x`</code></p>')).to.equal('``a`b`` and `` `x` ``');
  });

  it('nests block quotes and keeps their paragraphs', () => {
    expect(md('<blockquote><p>Outer</p><blockquote><p>Inner</p></blockquote><p>After</p></blockquote>')).to.equal('> Outer\n>\n> > Inner\n>\n> After');
  });

  it('makes links and images absolute against the page URL', () => {
    const out = md('<p><a href="../other.html" title="T">link</a> <img src="/img/a.png" alt="An [image]"></p>');
    expect(out).to.equal('[link](https://example.com/other.html "T") ![An \\[image\\]](https://example.com/img/a.png)');
  });

  it('resolves links against <base href>, itself relative to the page URL', () => {
    const out = md('<p><a href="page">p</a> <img src="i.png" alt=""></p>', '<base href="/docs/v2/">');
    expect(out).to.equal('[p](https://example.com/docs/v2/page) ![](https://example.com/docs/v2/i.png)');
  });

  it('takes lazy-loaded image sources over placeholder data URIs', () => {
    expect(md('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="x">')).to.equal('![x](https://example.com/real.jpg)');
  });

  it('takes lazy-loaded image sources over a placeholder file, but a src over a srcset or data-url', () => {
    expect(md('<img src="/images/default-md.png" data-src="/photos/real.jpg" alt="x">')).to.equal('![x](https://example.com/photos/real.jpg)');
    expect(md('<img src="/placeholder.gif" data-lazy-src="/a.jpg" alt="x">')).to.equal('![x](https://example.com/a.jpg)');
    expect(md('<img src="/a.jpg" srcset="/a-2x.jpg 2x" data-url="/share" alt="x">')).to.equal('![x](https://example.com/a.jpg)');
    expect(md('<img srcset="/b-1x.jpg 1x, /b-2x.jpg 2x" alt="x">')).to.equal('![x](https://example.com/b-1x.jpg)');
  });

  it('drops script links and keeps their text', () => {
    expect(md('<p><a href="javascript:void(0)">click</a></p>')).to.equal('click');
  });

  it('wraps each block of a link that spans blocks', () => {
    expect(md('<a href="/story"><h2>Headline</h2><p>Teaser</p></a>')).to.equal('## [Headline](https://example.com/story)\n\n[Teaser](https://example.com/story)');
  });

  it('writes line breaks as hard breaks and a double break as a new paragraph', () => {
    expect(md('<p>one<br>two<br><br>three</p>')).to.equal('one  \ntwo\n\nthree');
  });

  it('writes horizontal rules', () => {
    expect(md('<p>a</p><hr><p>b</p>')).to.equal('a\n\n---\n\nb');
  });

  it('escapes characters that Markdown would read as syntax', () => {
    expect(md('<p>5 * 3 = [x] and _under_ and snake_case and a\\b</p>')).to.equal('5 \\* 3 = \\[x\\] and \\_under\\_ and snake_case and a\\\\b');
    expect(md('<p># not a heading</p><p>1. not a list</p><p>- not a bullet</p><p>&lt;div&gt;</p>')).to.equal(
      '\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet\n\n\\<div>',
    );
  });

  it('skips scripts, styles, templates, hidden elements and form controls', () => {
    const html = '<p>keep</p><script>var x = "no";</script><style>p{}</style><template><p>no</p></template><div hidden>no</div><p style="display:none">no</p><button>no</button><input value="no">';
    expect(md(html)).to.equal('keep');
  });
});
