import { expect } from 'chai';
import { addLimitHeaders, LIMITS_CARRIER, readLimitHeaders } from '../../common/rate-limit-headers.js';

describe('limit headers between the control plane and the gateway', () => {
  it('travel in one header, those added later joining those already there', () => {
    const headers = new Headers();
    addLimitHeaders(headers, { 'x-dispatch-entitlement-limit': '50', 'x-dispatch-entitlement-remaining': '49' });
    addLimitHeaders(headers, { 'x-ratelimit-limit': '100', 'x-concurrency-current': '1' });
    expect([...headers.keys()]).to.deep.equal([LIMITS_CARRIER]);
    expect(readLimitHeaders(headers)).to.deep.equal({
      'x-dispatch-entitlement-limit': '50',
      'x-dispatch-entitlement-remaining': '49',
      'x-ratelimit-limit': '100',
      'x-concurrency-current': '1',
    });
  });

  it('let a later value of a header win, and drop names that are not limit headers', () => {
    const headers = new Headers();
    addLimitHeaders(headers, { 'retry-after': '5' });
    addLimitHeaders(headers, { 'retry-after': '1' });
    headers.set(LIMITS_CARRIER, `${headers.get(LIMITS_CARRIER)}&set-cookie=x&=3&x-ratelimit-limit`);
    expect(readLimitHeaders(headers)).to.deep.equal({ 'retry-after': '1' });
  });

  it('leave an answer without limits untouched', () => {
    const headers = new Headers();
    addLimitHeaders(headers, {});
    expect(headers.has(LIMITS_CARRIER)).to.equal(false);
    expect(readLimitHeaders(headers)).to.deep.equal({});
  });
});
