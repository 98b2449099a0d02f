import { expect } from 'chai';
import { linkDepth, pathDepthFrom, withinDepth } from '../../../workers/discovery/crawl-depth.js';

describe('discovery/crawl depth', () => {
  it('counts a link one hop deeper than its page', () => {
    expect(linkDepth(0)).to.equal(1);
    expect(linkDepth(4)).to.equal(5);
  });

  it('allows depths up to the maximum, 0 being the start page only', () => {
    expect(withinDepth(0, 0)).to.equal(true);
    expect(withinDepth(1, 0)).to.equal(false);
    expect(withinDepth(3, 3)).to.equal(true);
    expect(withinDepth(4, 3)).to.equal(false);
  });

  it('counts the path segments of a sitemap URL below the start folder', () => {
    expect(pathDepthFrom('https://e.test/', 'https://e.test/')).to.equal(0);
    expect(pathDepthFrom('https://e.test/', 'https://e.test/a/b')).to.equal(2);
    expect(pathDepthFrom('https://e.test/docs/', 'https://e.test/docs/a/b')).to.equal(2);
    expect(pathDepthFrom('https://e.test/docs/intro.html', 'https://e.test/docs/a.html')).to.equal(1);
    expect(pathDepthFrom('https://e.test/docs/intro.html', 'https://e.test/docs/intro.html')).to.equal(0);
  });

  it('counts from the root for URLs outside the start folder', () => {
    expect(pathDepthFrom('https://e.test/docs/', 'https://e.test/blog/x')).to.equal(2);
  });
});
