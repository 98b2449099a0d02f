import { expect } from 'chai';
import type { CrawlConfig } from '../../../common/crawl-config.js';
import { TrawlError } from '../../../common/errors.js';
import { crawlTierPlan, pageCharge } from '../../../control-plane/crawl/crawl-tiers.js';

const DEPLOYED = ['1', '2', '3', '4'];

function config(advanced: CrawlConfig['advanced'], costControls: CrawlConfig['cost_controls']): CrawlConfig {
  return { url: 'https://example.com/', advanced, cost_controls: costControls } as CrawlConfig;
}

describe('crawl tier plans', () => {
  it('keeps a crawl that names no tier at tier 1, reserving the tier-1 price', () => {
    expect(crawlTierPlan(config(null, null), DEPLOYED)).to.deep.equal({ tiers: ['1'], reserveMicrocents: 200 });
    expect(crawlTierPlan(config({ render_js: false, timeout: 30 }, { max_credits: 50 }), DEPLOYED)).to.deep.equal({ tiers: ['1'], reserveMicrocents: 200 });
  });

  it('plans the browser for render_js, the forced tier alone, and every tier up to max_tier, reserving the dearest', () => {
    expect(crawlTierPlan(config({ render_js: true }, null), DEPLOYED)).to.deep.equal({ tiers: ['4'], reserveMicrocents: 4_000 });
    expect(crawlTierPlan(config(null, { force_tier: '2' }), DEPLOYED)).to.deep.equal({ tiers: ['2'], reserveMicrocents: 300 });
    expect(crawlTierPlan(config(null, { max_tier: '4' }), DEPLOYED)).to.deep.equal({ tiers: ['1', '2', '3', '4'], reserveMicrocents: 4_000 });
    expect(crawlTierPlan(config(null, { max_tier: '2' }), DEPLOYED)).to.deep.equal({ tiers: ['1', '2'], reserveMicrocents: 300 });
  });

  it('plans only the deployed tiers the crawl pool runs, and refuses render_js under a lower max_tier', () => {
    expect(crawlTierPlan(config(null, { max_tier: '4' }), ['1', '2', '3', '3.5', '4', '5']).tiers).to.deep.equal(['1', '2', '3', '4']);
    expect(crawlTierPlan(config(null, { max_tier: '4' }), ['1', '4']).tiers).to.deep.equal(['1', '4']);
    expect(() => crawlTierPlan(config(null, { force_tier: '3.5' }), ['1', '2', '3', '3.5', '4'])).to.throw(TrawlError).with.property('code', 'SERVICE_UNAVAILABLE');
    expect(() => crawlTierPlan(config({ render_js: true }, null), ['1', '2'])).to.throw(TrawlError).with.property('code', 'SERVICE_UNAVAILABLE');
    expect(() => crawlTierPlan(config({ render_js: true }, { max_tier: '2' }), DEPLOYED)).to.throw(TrawlError).with.property('code', 'VALIDATION_ERROR');
  });

  it('charges a page its tier price, never more than it reserved', () => {
    const plain = config(null, { max_tier: '4' });
    expect(pageCharge(4_000, '2', plain)).to.equal(300);
    expect(pageCharge(4_000, '4', plain)).to.equal(4_000);
    expect(pageCharge(300, '4', plain)).to.equal(300);
    expect(pageCharge(0, '4', plain)).to.equal(0);
  });

  it('adds use_proxy (1 credit) to every page: reserved at the dearest tier, charged on top of the tier that fetched it', () => {
    const proxied = config({ use_proxy: true }, { max_tier: '4' });
    const plan = crawlTierPlan(proxied, DEPLOYED);
    expect(plan).to.deep.equal({ tiers: ['1', '2', '3', '4'], reserveMicrocents: 4_200 });
    expect(crawlTierPlan(config({ use_proxy: true }, null), DEPLOYED)).to.deep.equal({ tiers: ['1'], reserveMicrocents: 400 });
    expect(pageCharge(plan.reserveMicrocents, '1', proxied)).to.equal(400);
    expect(pageCharge(plan.reserveMicrocents, '2', proxied)).to.equal(500);
    expect(pageCharge(plan.reserveMicrocents, '4', proxied)).to.equal(4_200);
    expect(pageCharge(0, '4', proxied)).to.equal(0);
  });
});
