import { create } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { cacheIdentity, cacheTtlSeconds } from '../../../control-plane/scrape/result-cache.js';
import { ScrapeRequestSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';

const ACCOUNT_A = '11111111-1111-4111-8111-111111111111';
const ACCOUNT_B = '22222222-2222-4222-8222-222222222222';

function request(over: Record<string, unknown> = {}) {
  return create(ScrapeRequestSchema, { url: 'https://example.com/a', mode: 'auto', formats: ['markdown', 'text'], method: 'GET', sync: true, cache: true, ...over });
}

describe('response cache identity', () => {
  it('is the same for requests that ask for the same result, whatever runs them or the order of formats', () => {
    const base = cacheIdentity(request(), ACCOUNT_A);
    expect(base).to.be.a('string');
    expect(cacheIdentity(request({ formats: ['text', 'markdown'] }), ACCOUNT_A)).to.equal(base);
    expect(cacheIdentity(request({ sync: false, timeout: 30, forceRefresh: true, cacheTtl: 60, webhookUrl: 'https://hooks.example/x' }), ACCOUNT_A)).to.equal(base);
    expect(cacheIdentity(request({ costControls: { maxTier: '2' } }), ACCOUNT_A)).to.equal(base);
    // A public result is shared between accounts.
    expect(cacheIdentity(request(), ACCOUNT_B)).to.equal(base);
  });

  it('differs for anything that shapes the result', () => {
    const base = cacheIdentity(request(), ACCOUNT_A);
    for (const over of [
      { url: 'https://example.com/b' },
      { formats: ['markdown'] },
      { mode: 'html' },
      { includeRawHtml: true },
      { extractionProfile: 'article' },
      { advanced: { only_main_content: false } },
      { waitFor: '#main' },
    ]) {
      expect(cacheIdentity(request(over), ACCOUNT_A), JSON.stringify(over)).to.not.equal(base);
    }
  });

  it('keeps results made with private options to their account', () => {
    for (const advanced of [{ cookies: { sid: 'x' } }, { session_id: '33333333-3333-4333-8333-333333333333' }, { use_own_proxy: true }]) {
      const a = cacheIdentity(request({ advanced }), ACCOUNT_A);
      const b = cacheIdentity(request({ advanced }), ACCOUNT_B);
      expect(a, JSON.stringify(advanced)).to.not.equal(b);
      expect(cacheIdentity(request({ advanced }), ACCOUNT_A)).to.equal(a);
    }
  });

  it('keeps results of requests with their own headers to their account', () => {
    const withHeaders = request({ headers: { authorization: 'Bearer x' } });
    expect(cacheIdentity(withHeaders, ACCOUNT_A)).to.not.equal(cacheIdentity(withHeaders, ACCOUNT_B));
    expect(cacheIdentity(request(), ACCOUNT_A)).to.equal(cacheIdentity(request(), ACCOUNT_B));
  });

  it('is the same when a request spells out a default of advanced, or markdown (already in its formats)', () => {
    const base = cacheIdentity(request(), ACCOUNT_A);
    const spelled = { remove_cookie_banners: true, only_main_content: true, render_js: 'auto', screenshot: false, use_proxy: false, markdown: true };
    expect(cacheIdentity(request({ advanced: spelled }), ACCOUNT_A)).to.equal(base);
    expect(cacheIdentity(request({ advanced: { remove_cookie_banners: false } }), ACCOUNT_A)).to.not.equal(base);
    // A caller cannot pick the identity a result is stored under.
    expect(cacheIdentity(request({ cacheIdentity: 'chosen' }), ACCOUNT_A)).to.equal(base);
  });

  it('differs with the stored session\'s cookies and the caller\'s proxy, which are in no request field', () => {
    const session = request({ advanced: { session_id: '33333333-3333-4333-8333-333333333333' } });
    const before = cacheIdentity(session, ACCOUNT_A, { sessionCookies: { sid: 'one' } });
    expect(cacheIdentity(session, ACCOUNT_A, { sessionCookies: { sid: 'two' } })).to.not.equal(before);
    expect(cacheIdentity(session, ACCOUNT_A, { sessionCookies: { sid: 'one' } })).to.equal(before);
    const own = request({ advanced: { use_own_proxy: true } });
    expect(cacheIdentity(own, ACCOUNT_A, { ownProxyUrl: 'http://u:p@203.0.113.1:3128' })).to.not.equal(cacheIdentity(own, ACCOUNT_A, { ownProxyUrl: 'http://u:p@203.0.113.2:3128' }));
  });

  it('does not cache requests that may change the target', () => {
    expect(cacheIdentity(request({ method: 'POST', body: '{}' }), ACCOUNT_A)).to.equal(null);
    expect(cacheIdentity(request({ method: 'HEAD' }), ACCOUNT_A)).to.be.a('string');
  });

  it('keeps results 900 seconds unless cache_ttl says otherwise', () => {
    expect(cacheTtlSeconds(request())).to.equal(900);
    expect(cacheTtlSeconds(request({ cacheTtl: 120 }))).to.equal(120);
  });
});
