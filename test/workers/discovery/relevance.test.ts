import { expect } from 'chai';
import { relevanceScore, relevanceTerms } from '../../../workers/discovery/relevance.js';

describe('discovery/relevance', () => {
  it('splits text into lower-case, accent-free terms', () => {
    expect(relevanceTerms('Café-Menü_2024/Prices.html')).to.deep.equal(['cafe', 'menu', '2024', 'prices', 'html']);
  });

  it('scores 1 when every term is in one field in query order', () => {
    expect(relevanceScore('pricing plans', { path: '/pricing-plans' })).to.equal(1);
    expect(relevanceScore('Pricing', { path: '/x', title: 'Our pricing' })).to.equal(1);
  });

  it('scores 0 when nothing matches, and for a query with no terms', () => {
    expect(relevanceScore('pricing', { path: '/about', title: 'About us', anchorText: 'Team' })).to.equal(0);
    expect(relevanceScore('  --  ', { path: '/anything' })).to.equal(0);
  });

  it('gives partial credit for a term matching the start of a longer word', () => {
    expect(relevanceScore('crawl', { path: '/crawler' })).to.equal(0.63);
    expect(relevanceScore('crawling', { path: '/crawl' })).to.equal(0.63);
  });

  it('does not treat a short field term as a stem', () => {
    expect(relevanceScore('docs', { path: '/do' })).to.equal(0);
  });

  it('weights anchor text a little below path and title', () => {
    expect(relevanceScore('careers', { path: '/x', anchorText: 'Careers' })).to.equal(0.91);
    expect(relevanceScore('careers', { path: '/careers' })).to.be.greaterThan(relevanceScore('careers', { path: '/x', anchorText: 'Careers' }));
  });

  it('rises with the share of query terms found', () => {
    const one = relevanceScore('blue kettle price', { path: '/kettle' });
    const two = relevanceScore('blue kettle price', { path: '/blue-kettle' });
    expect(one).to.equal(0.3);
    expect(two).to.equal(0.6);
    expect(relevanceScore('blue kettle price', { path: '/blue-kettle-price' })).to.equal(1);
  });

  it('combines fields per term and adds the phrase bonus only for consecutive terms', () => {
    expect(relevanceScore('blue kettle', { path: '/kettle', title: 'Blue things' })).to.equal(0.9);
    expect(relevanceScore('blue kettle', { path: '/kettle-blue' })).to.equal(0.9);
  });

  it('reads the path percent-decoded', () => {
    expect(relevanceScore('café', { path: '/caf%C3%A9' })).to.equal(1);
  });

  it('stays within 0 and 1', () => {
    const score = relevanceScore('a a a b', { path: '/a/a/b/b', title: 'a b', anchorText: 'a b' });
    expect(score).to.be.within(0, 1);
  });
});
