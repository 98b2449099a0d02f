import { expect } from 'chai';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('API key authentication', function () {
  this.timeout(60_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  it('answers a request without a key with 401 MISSING_API_KEY', async () => {
    const res = await apiClient(stack.baseUrl).post('/api/v1/scrape', { url: 'https://example.com' });
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
    expect(res.body.request_id).to.be.a('string');
  });

  it('answers polling without a key with 401 MISSING_API_KEY', async () => {
    const res = await apiClient(stack.baseUrl).get('/api/v1/jobs/3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
  });

  for (const [what, key] of [
    ['a malformed key', 'not-a-key'],
    ['a key with the wrong prefix', `pk_live_${'a'.repeat(32)}`],
    ['a well-formed key that was never issued', `sk_live_${'A'.repeat(32)}`],
  ]) {
    it(`answers ${what} with 401 INVALID_API_KEY`, async () => {
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: 'https://example.com' });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('INVALID_API_KEY');
    });
  }

  it('answers a malformed key with 401 before it looks at the body', async () => {
    const res = await apiClient(stack.baseUrl, 'sk_live_bogus').post('/api/v1/scrape', {});
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('INVALID_API_KEY');
  });

  it('answers a revoked key with 401 INVALID_API_KEY', async () => {
    const { key } = await createTestAccount(stack, 1_000);
    await stack.pool.query('UPDATE api_keys SET revoked_at = now() WHERE key_prefix = $1', [key.slice(0, 12)]);
    const res = await apiClient(stack.baseUrl, key).get('/api/v1/jobs/3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('INVALID_API_KEY');
  });

  it('lets the health routes through without a key', async () => {
    const res = await apiClient(stack.baseUrl).get('/api/v1/health');
    expect(res.status).to.equal(200);
  });
});
