import { expect } from 'chai';
import { budgetMatcher } from '../../common/crawl-config.js';

describe('common/crawl-config budgetMatcher', () => {
  it('answers the longest matching pattern, * for the rest, null without a catch-all or a budget', () => {
    const match = budgetMatcher({ '/blog/**': 5, '/blog/2024/*': 2, '*': 10 });
    expect(match('https://a.example/blog/2024/post')).to.equal('/blog/2024/*');
    expect(match('https://a.example/blog/2023/post')).to.equal('/blog/**');
    expect(match('https://a.example/blog')).to.equal('/blog/**');
    expect(match('https://a.example/about')).to.equal('*');
    expect(budgetMatcher({ '/docs/**': 3 })('https://a.example/about')).to.equal(null);
    expect(budgetMatcher(null)('https://a.example/about')).to.equal(null);
  });

  it('answers the catch-all or null for every URL when the budget names no pattern, even one that is no URL', () => {
    expect(budgetMatcher({ '*': 4 })('https://a.example/any/path')).to.equal('*');
    expect(budgetMatcher({ '*': 4 })('not a url')).to.equal('*');
    expect(budgetMatcher({})('https://a.example/any/path')).to.equal(null);
  });
});
