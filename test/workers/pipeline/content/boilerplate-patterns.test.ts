import { expect } from 'chai';
import { CONTENT, JUNK, LIKELY_JUNK, classifyAttributes } from '../../../../workers/pipeline/content/boilerplate-patterns.js';

describe('class and id words', () => {
  const cases: [Record<string, string>, number][] = [
    [{ class: 'entry-content' }, CONTENT],
    [{ class: 'articleMeta' }, LIKELY_JUNK],
    [{ class: 'menu-item menu-item-4926' }, JUNK],
    [{ class: 'row\tcol-md-6' }, 0],
    [{ class: 'article-meta entry-content' }, CONTENT | LIKELY_JUNK],
    [{ class: 'entry-content', id: 'sidebar' }, CONTENT | JUNK],
    [{ class: 'post__date', id: 'main' }, CONTENT | LIKELY_JUNK],
    // Calls to action and embedded social posts.
    [{ class: 'hs-cta-wrapper' }, JUNK],
    [{ class: 'ctaBox' }, JUNK],
    [{ class: 'twitter-tweet' }, JUNK],
    [{ class: 'instagram-media' }, JUNK],
    [{ class: 'tiktok-embed' }, JUNK],
    [{ class: 'retweet-count' }, 0],
    [{ class: 'actable' }, 0],
  ];

  it('reads a class list and id as the union of their names, whatever the cache already holds', () => {
    for (const [attrs, hints] of cases) expect(classifyAttributes(attrs), JSON.stringify(attrs)).to.equal(hints);
    // One cache for the page, filled by single names first and then by lists that mix them with new ones.
    const names = new Map<string, number>();
    for (const [attrs, hints] of [...cases].reverse()) expect(classifyAttributes(attrs, names), JSON.stringify(attrs)).to.equal(hints);
    for (const [attrs, hints] of cases) expect(classifyAttributes(attrs, names), `${JSON.stringify(attrs)} cached`).to.equal(hints);
  });
});
