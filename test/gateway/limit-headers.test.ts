import { expect } from 'chai';
import { addLimitHeaders, LIMITS_CARRIERS, readLimitHeaders } from '../../common/rate-limit-headers.js';

describe('limit headers between the control plane and the gateway', () => {
  it('travel in one header, those added later joining those already there', () => {
    const headers = new Headers();
    addLimitHeaders(headers, 'dispatch', { 'x-dispatch-entitlement-limit': '50', 'x-dispatch-entitlement-remaining': '49' });
    addLimitHeaders(headers, 'key', { 'x-ratelimit-limit': '100' });
    addLimitHeaders(headers, 'key', { 'x-concurrency-current': '1' });
    expect([...headers.keys()].sort()).to.deep.equal([LIMITS_CARRIERS.dispatch, LIMITS_CARRIERS.key]);
    expect(readLimitHeaders(headers)).to.deep.equal({
      'x-dispatch-entitlement-limit': '50',
      'x-dispatch-entitlement-remaining': '49',
      'x-ratelimit-limit': '100',
      'x-concurrency-current': '1',
    });
  });

  it('let a later value of a header win, and drop names that are not limit headers', () => {
    const headers = new Headers();
    addLimitHeaders(headers, 'dispatch', { 'retry-after': '5' });
    addLimitHeaders(headers, 'key', { 'retry-after': '1' });
    headers.set(LIMITS_CARRIERS.key, `${headers.get(LIMITS_CARRIERS.key)}&set-cookie=x&=3&x-ratelimit-limit`);
    expect(readLimitHeaders(headers)).to.deep.equal({ 'retry-after': '1' });
  });

  it('are all read when a failed call carries the header twice', () => {
    const handler = new Headers();
    addLimitHeaders(handler, 'key', { 'x-dispatch-entitlement-limit': '15', 'retry-after': '1' });
    const error = new Headers();
    addLimitHeaders(error, 'key', { 'x-ratelimit-limit': '30' });
    const answer = new Headers(handler);
    error.forEach((value, name) => answer.append(name, value));
    expect(readLimitHeaders(answer)).to.deep.equal({ 'x-dispatch-entitlement-limit': '15', 'retry-after': '1', 'x-ratelimit-limit': '30' });
  });

  it('leave an answer without limits untouched', () => {
    const headers = new Headers();
    addLimitHeaders(headers, 'key', {});
    expect([...headers.keys()]).to.deep.equal([]);
    expect(readLimitHeaders(headers)).to.deep.equal({});
  });
});
