import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import { convertHtml } from '../../../../workers/pipeline/content/index.js';
import { applyProfile, buildSectionTree, extractStructuredData, matchSchema } from '../../../../workers/pipeline/structured/index.js';
import { limitDepth, MAX_ELEMENT_DEPTH } from '../../../../workers/pipeline/structured/document-input.js';

const deepPage = (levels: number) =>
  `<html><head><title>Deep</title></head><body><h1>Deep page</h1>${'<div><span>'.repeat(levels)}buried text<img src="/a.png">${'</span></div>'.repeat(levels)}<p>after the pile</p></body></html>`;

function depthOf(node: { children?: unknown[] }): number {
  let max = 0;
  const stack: Array<[{ children?: unknown[] }, number]> = [[node, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    max = Math.max(max, d);
    for (const c of n.children ?? []) stack.push([c as { children?: unknown[] }, d + 1]);
  }
  return max;
}

describe('structured/pathologically deep pages', () => {
  it('reads a page nested 50,000 elements deep without exhausting the stack, keeping the buried text and image', () => {
    const html = deepPage(25_000);
    const data = extractStructuredData(html, 'https://deep.example/page');
    expect(applyProfile('article', data).fields['title']).to.equal('Deep page');
    const { filtered_content } = matchSchema({ type: 'object', properties: { title: { type: 'string' }, images: { type: 'array' } } }, data);
    expect(filtered_content).to.deep.equal({ title: 'Deep page', images: ['https://deep.example/a.png'] });
    const tree = buildSectionTree(html, 'https://deep.example/page');
    expect(tree.sections[0]!.paragraphs).to.deep.equal(['buried text', 'after the pile']);
    const content = convertHtml(html, { url: 'https://deep.example/page' });
    expect(content.markdown).to.contain('buried text').and.contain('after the pile');
  });

  it('flattens only below the depth limit and keeps text order', () => {
    const doc = parseDocument(`${'<div>'.repeat(10)}<p>one</p><p>two <b>three</b></p>${'</div>'.repeat(10)}`);
    limitDepth(doc, 4);
    expect(depthOf(doc)).to.be.at.most(5);
    const texts: string[] = [];
    const walk = (n: { data?: string; children?: unknown[] }) => {
      if (typeof n.data === 'string') texts.push(n.data);
      for (const c of n.children ?? []) walk(c as { data?: string; children?: unknown[] });
    };
    walk(doc);
    expect(texts.join('|')).to.equal('one|two |three');
    const shallow = parseDocument('<div><p>kept <b>as is</b></p></div>');
    limitDepth(shallow, MAX_ELEMENT_DEPTH);
    expect(depthOf(shallow)).to.equal(4);
  });
});
