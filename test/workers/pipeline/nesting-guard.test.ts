import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import { runPipeline } from '../../../workers/pipeline/index.js';
import { convertHtml, convertPage } from '../../../workers/pipeline/content/index.js';
import { recordTape } from '../../../workers/pipeline/content/html-tape.js';
import {
  limitMarkdownNesting,
  limitNesting,
  MAX_MARKDOWN_INDENT,
  MAX_MARKDOWN_QUOTE_DEPTH,
  MAX_NESTING_DEPTH,
  NestingOverflow,
} from '../../../workers/pipeline/nesting-guard.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

const noLlm = { llm: { baseUrl: '', apiKey: '', model: 'none', timeoutMs: 1_000 } };

function maxDepthOf(html: string): number {
  let depth = 0;
  let max = 0;
  for (const m of html.matchAll(/<(\/?)(div|span)\b[^>]*>/g)) {
    depth += m[1] ? -1 : 1;
    max = Math.max(max, depth);
  }
  return max;
}

describe('pipeline/nesting guard', () => {
  it('returns every page of the shared extraction set unchanged (the same string)', () => {
    const files = extractionPageFiles();
    expect(files.length).to.be.greaterThan(100);
    for (const file of files) {
      const html = readExtractionPage(file);
      expect(limitNesting(html) === html, file).to.equal(true);
    }
  });

  it('removes the tags of elements deeper than the limit and keeps their text in order', () => {
    const html = `<body>${'<div>'.repeat(10)}one<span>two</span>${'</div>'.repeat(10)}<p>three</p></body>`;
    const out = limitNesting(html, 5);
    expect(maxDepthOf(out)).to.be.at.most(4);
    expect(out.replace(/<[^>]+>/g, '')).to.equal('onetwothree');
    expect(out).to.contain('<p>three</p>');
  });

  it('does not count void elements, self-closing tags, implied end tags, comments or script text as depth', () => {
    const items = '<li>item'.repeat(50);
    const html = `<ul>${items}</ul><p>a<p>b<br><img src=x><input/>${'<!-- <div> -->'.repeat(50)}<script>${'<div>'.repeat(50)}</script><div>kept</div>`;
    expect(limitNesting(html, 8)).to.equal(html);
  });

  it('turns a five-megabyte run of unclosed elements into a page every output format handles', async () => {
    const body = `<h1>Pile</h1>${'<div>'.repeat(450_000)}bottom text`;
    expect(body.length).to.be.greaterThan(2_000_000);
    const out = await runPipeline(
      { url: 'https://deep.example/', body, contentType: 'html', formats: ['markdown', 'text', 'html', 'json', 'json_v2', 'rag'], onlyMainContent: true } as Parameters<typeof runPipeline>[0],
      noLlm,
    );
    expect(out.formats['markdown']).to.contain('bottom text');
    expect(JSON.stringify(out.formats['json_v2'])).to.contain('bottom text');
  });

  it('agrees with the parser on tags that tricked a simpler scan, so nothing reaches it nested past the limit', () => {
    const n = 20_000;
    const cases: Array<[string, string]> = [
      ['self-closing non-void elements open', '<div/>'.repeat(n)],
      ['noscript is not raw text', `<noscript>${'<div>'.repeat(n)}`],
      ['<!--> is a whole comment', `<!-->${'<div>'.repeat(n)}`],
      ['a quote after a bare = opens nothing', `<div =">${'<div>'.repeat(n)}`],
      ['thead does not close tfoot', `<table>${'<tfoot><thead>'.repeat(n / 2)}`],
    ];
    for (const [what, html] of cases) {
      const doc = parseDocument(limitNesting(html));
      let max = 0;
      const stack: Array<[{ children?: unknown[] }, number]> = [[doc, 0]];
      while (stack.length > 0) {
        const [node, depth] = stack.pop()!;
        max = Math.max(max, depth);
        for (const child of node.children ?? []) stack.push([child as { children?: unknown[] }, depth + 1]);
      }
      expect(max, what).to.be.at.most(513);
    }
  });

  it('converts a page within the limit as it is, and one nested past it as the guard leaves it, in a single pass each', () => {
    const within = `<article><h1>Title</h1>${'<div>'.repeat(400)}<p>deep but allowed</p>${'</div>'.repeat(400)}</article>`;
    const page = convertPage(within, { url: 'https://deep.example/', links: true });
    expect(page.source === within).to.equal(true);
    expect(page.result.markdown).to.contain('deep but allowed');

    const past = `<article><h1>Title</h1><p><a href="/top">top</a></p>${'<div>'.repeat(3_000)}<p>at the bottom</p>${'</div>'.repeat(3_000)}</article><p>after</p>`;
    const guarded = limitNesting(past);
    expect(guarded).not.to.equal(past);
    const deep = convertPage(past, { url: 'https://deep.example/', links: true });
    expect(deep.source).to.equal(guarded);
    const direct = convertHtml(guarded, { url: 'https://deep.example/', links: true });
    expect(deep.result.markdown).to.equal(direct.markdown);
    expect(deep.result.markdown).to.contain('at the bottom');
    // The links come from the guarded page's parse alone, not twice from the abandoned one.
    expect(deep.result.links).to.deep.equal(direct.links);
    expect(deep.result.links!.links.map((l) => l.url)).to.deep.equal(['https://deep.example/top']);
  });

  it('stops recording a tape as soon as elements nest past the limit', () => {
    expect(() => recordTape(`${'<div>'.repeat(MAX_NESTING_DEPTH + 1)}x`)).to.throw(NestingOverflow);
    expect(() => recordTape(`${'<div>'.repeat(MAX_NESTING_DEPTH)}x`)).not.to.throw();
  });

  it('lets self-closing tags inside SVG stay self-closing', () => {
    const html = `<svg>${'<path d="M0 0"/>'.repeat(2_000)}</svg><p>after</p>`;
    expect(limitNesting(html)).to.equal(html);
  });

  it('caps Markdown block-quote depth and indentation outside fenced code only', () => {
    const deepQuote = `${'>'.repeat(100)} quoted`;
    expect(limitMarkdownNesting(deepQuote)).to.equal(`${'>'.repeat(MAX_MARKDOWN_QUOTE_DEPTH)} quoted`);
    const deepIndent = `${' '.repeat(500)}- item`;
    expect(limitMarkdownNesting(deepIndent)).to.equal(`${' '.repeat(MAX_MARKDOWN_INDENT)}- item`);
    const fenced = `\`\`\`\n${' '.repeat(500)}code\n\`\`\`\n`;
    expect(limitMarkdownNesting(fenced)).to.equal(fenced);
    const normal = '# Title\n\n> quote\n>> nested\n\n- a\n  - b\n    - c\n';
    expect(limitMarkdownNesting(normal)).to.equal(normal);
  });

  it('renders a Markdown list nested 2,000 levels deep', async () => {
    const body = Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i * 2)}- item ${i}`).join('\n');
    const out = await runPipeline(
      { url: 'https://deep.example/', body, contentType: 'markdown', formats: ['html', 'rag'], onlyMainContent: true } as Parameters<typeof runPipeline>[0],
      noLlm,
    );
    expect(out.formats['html']).to.contain('item 1999');
    expect(out.formats['rag']).to.be.an('array').that.is.not.empty;
  });
});
