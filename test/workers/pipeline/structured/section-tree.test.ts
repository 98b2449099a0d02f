import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import { buildSectionTree } from '../../../../workers/pipeline/structured/index.js';
import { profilePage } from './profile-pages.js';

const URL = 'https://urbanledger.example/street-trees/';

/** Rewrites every start tag with its attributes in reverse order. */
function reverseAttributes(html: string): string {
  return html.replace(/<([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)+)\s*(\/?)>/g, (_m, tag: string, attrs: string, slash: string) => {
    const list = attrs.match(/[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?/g) ?? [];
    return `<${tag} ${list.reverse().join(' ')}${slash ? ' /' : ''}>`;
  });
}

describe('structured/section tree (json_v2)', () => {
  it('builds the heading hierarchy with paragraphs, lists, tables and absolute links', () => {
    const tree = buildSectionTree(profilePage('article-json-ld-graph.html'), URL);
    expect(tree.title).to.equal('How Cities Are Rethinking Street Trees');
    expect(tree.sections).to.have.length(1);
    const top = tree.sections[0]!;
    expect([top.heading, top.level]).to.deep.equal(['How Cities Are Rethinking Street Trees', 1]);
    expect(top.sections.map((s) => [s.heading, s.level])).to.deep.equal([
      ['Mapping the heat', 2],
      ['Diversity rules', 2],
    ]);
    expect(top.links).to.deep.include({ text: 'new heat studies', href: 'https://example.org/heat-study' });
    expect(top.links).to.deep.include({ text: 'Maya Jensen', href: 'https://urbanledger.example/author/maya/' });
    const data = top.sections[0]!.sections[0]!;
    expect(data.heading).to.equal('Which data they use');
    expect(data.level).to.equal(3);
    expect(data.lists).to.deep.equal([
      { ordered: false, items: ['Satellite land-surface temperature', 'Canopy cover from aerial lidar', 'Hospital admissions during heat waves'] },
    ]);
    const rules = top.sections[1]!;
    expect(rules.paragraphs[0]).to.equal('Many cities follow a 10-20-30 rule for species, genus and family.');
    expect(rules.tables).to.deep.equal([
      { headers: ['Level', 'Maximum share'], rows: [['Species', '10%'], ['Genus', '20%'], ['Family', '30%']] },
    ]);
    expect(rules.lists).to.deep.equal([{ ordered: true, items: ['Survey the existing stock.', 'Pick under-represented families.'] }]);
    expect(rules.links).to.deep.include({ text: 'methodology', href: 'https://urbanledger.example/street-trees/methodology/' });
  });

  it('keeps a stable key order in every section', () => {
    const tree = buildSectionTree('<h2>A</h2><p>x</p>', URL);
    expect(Object.keys(tree)).to.deep.equal(['url', 'title', 'sections']);
    expect(Object.keys(tree.sections[0]!)).to.deep.equal(['heading', 'level', 'paragraphs', 'lists', 'tables', 'links', 'sections']);
  });

  it('is byte-identical across runs and for a parsed document', () => {
    const html = profilePage('article-json-ld-graph.html');
    const first = JSON.stringify(buildSectionTree(html, URL));
    for (let i = 0; i < 3; i++) expect(JSON.stringify(buildSectionTree(html, URL))).to.equal(first);
    expect(JSON.stringify(buildSectionTree(parseDocument(html), URL))).to.equal(first);
  });

  it('is unchanged when attributes are written in another order', () => {
    const html = profilePage('article-json-ld-graph.html');
    const reordered = reverseAttributes(html);
    expect(reordered).not.to.equal(html);
    expect(JSON.stringify(buildSectionTree(reordered, URL))).to.equal(JSON.stringify(buildSectionTree(html, URL)));
  });

  it('puts content before the first heading in a level-0 section and nests deeper headings', () => {
    const tree = buildSectionTree('<p>Intro <a href="/x">link</a></p><h2>B</h2><h4>C</h4><p>c</p><h3>D</h3><h1>E</h1>', URL);
    expect(tree.title).to.equal('E');
    expect(tree.sections.map((s) => [s.heading, s.level])).to.deep.equal([
      [null, 0],
      ['B', 2],
      ['E', 1],
    ]);
    expect(tree.sections[0]!.paragraphs).to.deep.equal(['Intro link']);
    expect(tree.sections[0]!.links).to.deep.equal([{ text: 'link', href: 'https://urbanledger.example/x' }]);
    expect(tree.sections[1]!.sections.map((s) => [s.heading, s.level])).to.deep.equal([
      ['C', 4],
      ['D', 3],
    ]);
  });

  it('lists nested lists after their parent, reads tables without a head, and keeps loose text', () => {
    const html = `<h2>S</h2><div>Loose text <b>here</b><div>and a block</div></div>
      <ul><li>One<ul><li>One.a</li></ul></li><li>Two</li></ul>
      <table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>`;
    const section = buildSectionTree(html, URL).sections[0]!;
    expect(section.paragraphs).to.deep.equal(['Loose text here', 'and a block']);
    expect(section.lists).to.deep.equal([
      { ordered: false, items: ['One', 'Two'] },
      { ordered: false, items: ['One.a'] },
    ]);
    expect(section.tables).to.deep.equal([{ headers: [], rows: [['a', 'b'], ['c', 'd']] }]);
  });

  it('skips scripts, navigation and hidden elements, and keeps code blocks verbatim', () => {
    const html = `<body><nav><a href="/menu">Menu</a></nav><h2>Code</h2><script>var x = 1;</script><p hidden>secret</p>
      <pre><code>line 1
  line 2</code></pre><a href="javascript:void(0)">js</a></body>`;
    const section = buildSectionTree(html, URL).sections[0]!;
    expect(section.paragraphs).to.deep.equal(['line 1\n  line 2', 'js']);
    expect(section.links).to.deep.equal([]);
  });

  it('gives every fixture page a deterministic tree titled by its h1', () => {
    const pages: Array<[string, string]> = [
      ['product-json-ld.html', 'Aeropress Clear Coffee Maker'],
      ['product-microdata.html', 'Wanderrucksack Alpin 32'],
      ['job-posting.html', 'Senior Backend Engineer (TypeScript)'],
      ['faq-json-ld.html', 'Shipping and returns'],
      ['recipe.html', 'Weeknight Chickpea Curry'],
      ['event.html', 'The Lowland Quartet – Spring Tour'],
    ];
    for (const [file, title] of pages) {
      const html = profilePage(file);
      const tree = buildSectionTree(html, `https://site.example/${file}`);
      expect(tree.title, file).to.equal(title);
      expect(JSON.stringify(buildSectionTree(reverseAttributes(html), `https://site.example/${file}`)), file).to.equal(JSON.stringify(tree));
    }
    const faq = buildSectionTree(profilePage('faq-json-ld.html'), 'https://site.example/faq');
    expect(faq.sections[0]!.sections.map((s) => [s.heading, s.paragraphs])).to.deep.equal([
      ['How long does delivery take?', ['Orders ship within 2 working days and arrive in 3–5 days.']],
      ['Can I return a rug?', ['Yes. Unused rugs can be returned within 30 days for a full refund.']],
      ['Do you ship abroad?', ['We ship to the EU, Norway and Switzerland.']],
    ]);
  });

  it('uses the body of a whole page and gives an empty tree for an empty page', () => {
    const page = buildSectionTree('<html><head><title>T</title></head><body><h1>Only</h1></body></html>', URL);
    expect(page.sections).to.deep.equal([{ heading: 'Only', level: 1, paragraphs: [], lists: [], tables: [], links: [], sections: [] }]);
    expect(buildSectionTree('', URL)).to.deep.equal({ url: URL, title: null, sections: [] });
  });
});
