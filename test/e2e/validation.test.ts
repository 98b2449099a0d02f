import { expect } from 'chai';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('request validation and the error envelope', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let key: string;

  before(async () => {
    stack = await getStack();
    key = (await createTestAccount(stack, 100_000)).key;
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a missing url', {}, 'url'],
    ['a relative url', { url: '/page' }, 'url'],
    ['a non-http scheme', { url: 'ftp://example.com/file' }, 'url'],
    ['a URL over 8192 characters', { url: `https://example.com/${'a'.repeat(8200)}` }, 'url'],
    ['an unknown format', { url: 'https://example.com', formats: ['pdf'] }, 'formats[0]'],
    ['an empty formats list', { url: 'https://example.com', formats: [] }, 'formats'],
    ['a timeout over 300', { url: 'https://example.com', timeout: 301 }, 'timeout'],
    ['a timeout of 0', { url: 'https://example.com', timeout: 0 }, 'timeout'],
    ['an unknown mode', { url: 'https://example.com', mode: 'fast' }, 'mode'],
    ['an unknown field', { url: 'https://example.com', format: 'markdown' }, 'body'],
    ['a body with GET', { url: 'https://example.com', body: 'x' }, 'body'],
    ['POST with neither body nor content type', { url: 'https://example.com', method: 'POST' }, 'body'],
    ['sync_policy without sync', { url: 'https://example.com', sync: false, sync_policy: 'wait_until_deadline' }, 'sync_policy'],
    ['screenshot without render_js', { url: 'https://example.com', advanced: { screenshot: true } }, 'advanced.screenshot'],
    ['render_js false with mode js', { url: 'https://example.com', mode: 'js', advanced: { render_js: false } }, 'advanced.render_js'],
    ['wait_condition differing from wait_until', { url: 'https://example.com', wait_until: 'domcontentloaded', advanced: { wait_condition: 'load' } }, 'advanced.wait_condition'],
    ['scroll_to_load with enable_scroll false', { url: 'https://example.com', enable_scroll: false, advanced: { render_js: true, scroll_to_load: true } }, 'advanced.scroll_to_load'],
    ['wait_for with mode html (a browser option on the HTTP tiers)', { url: 'https://example.com', mode: 'html', wait_for: '#late' }, 'wait_for'],
    ['headers over 32 KB in all', { url: 'https://example.com', headers: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-pad-${i}`, 'v'.repeat(2_000)])) }, 'headers'],
    ['a wait_for_timeout over 60 s', { url: 'https://example.com', wait_for: '#late', wait_for_timeout: 61 }, 'wait_for_timeout'],
    ['a wait_for_timeout without wait_for', { url: 'https://example.com', wait_for_timeout: 10 }, 'wait_for_timeout'],
    ['a wait_for that is not a CSS selector', { url: 'https://example.com', wait_for: 'div[' }, 'wait_for'],
    ['a wait_for that ends in a comma', { url: 'https://example.com', wait_for: '#a,' }, 'wait_for'],
    ['advanced.markdown false when only markdown is asked for', { url: 'https://example.com', formats: ['markdown'], advanced: { markdown: false } }, 'advanced.markdown'],
    ['enable_scroll with max_tier 2', { url: 'https://example.com', enable_scroll: true, cost_controls: { max_tier: '2' } }, 'enable_scroll'],
    ['an unknown tier', { url: 'https://example.com', cost_controls: { max_tier: '9' } }, 'cost_controls.max_tier'],
    ['max_tier 5 (captcha solving is chosen by escalation only)', { url: 'https://example.com', cost_controls: { max_tier: '5' } }, 'cost_controls.max_tier'],
    ['force_tier 5', { url: 'https://example.com', cost_controls: { force_tier: '5' } }, 'cost_controls.force_tier'],
    ['an extraction schema that describes an array', { url: 'https://example.com', extraction_schema: { type: 'array', items: { type: 'string' } } }, 'extraction_schema.type'],
    ['a schema property of an unknown type', { url: 'https://example.com', extraction_schema: { type: 'object', properties: { a: { type: 'strin' } } } }, 'extraction_schema.properties.a.type'],
    ['a schema $ref that does not resolve', { url: 'https://example.com', extraction_schema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } }, 'extraction_schema.properties.a.$ref'],
    ['a blank extraction prompt', { url: 'https://example.com', extraction_prompt: '  \n ' }, 'extraction_prompt'],
    ['an http webhook_url', { url: 'https://example.com', webhook_url: 'http://hooks.example.com/x' }, 'webhook_url'],
    ['a profile the scrape route does not take', { url: 'https://example.com', extraction_profile: 'recipe' }, 'extraction_profile'],
    ['a prompt over 4000 characters', { url: 'https://example.com', extraction_prompt: 'x'.repeat(4001) }, 'extraction_prompt'],
    ['a bad country code', { url: 'https://example.com', location: { country: 'USA' } }, 'location.country'],
  ];
  it('takes the browser options with mode js as with render_js, and plans the browser for wait_for and enable_scroll', async () => {
    const api = apiClient(stack.baseUrl, key);
    const js = await api.post('/api/v1/scrape/estimate', { url: 'https://example.com', mode: 'js', advanced: { screenshot: true, generate_pdf: true, scroll_to_load: true } });
    expect(js.status, JSON.stringify(js.body)).to.equal(200);
    // Tier 5 (captcha solving) ends a plan that reaches the browser when the stack has a solver.
    expect(js.body.tier_plan.filter((t: string) => t !== '5')).to.deep.equal(['4']);
    for (const option of [{ wait_for: '#late' }, { enable_scroll: true }]) {
      const res = await api.post('/api/v1/scrape/estimate', { url: 'https://example.com', ...option });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.tier_plan.filter((t: string) => t !== '5'), JSON.stringify(option)).to.deep.equal(['4']);
    }
    const plain = await api.post('/api/v1/scrape/estimate', { url: 'https://example.com', enable_scroll: false });
    expect(plain.body.tier_plan[0]).to.equal('1');
  });

  for (const [what, body, field] of invalid) {
    it(`refuses ${what} with 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', body);
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.request_id).to.match(/^req_/);
      expect(res.body.message).to.be.a('string').and.not.empty;
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include(field);
    });
  }

  it('names session_id and cookies sent together as SESSION_COOKIES_CONFLICT', async () => {
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', {
      url: 'https://example.com',
      advanced: { session_id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', cookies: { a: 'b' } },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('SESSION_COOKIES_CONFLICT');
    expect(res.body.details.code).to.equal('SESSION_COOKIES_CONFLICT');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('advanced.cookies');
  });

  const rawBodies: Array<[string, string, string]> = [
    ['a schema number out of range', '{"url":"https://example.com","extraction_schema":{"type":"object","properties":{"a":{"type":"number","maximum":1e400}}}}', 'extraction_schema.properties.a.maximum'],
    ['a schema $ref with a malformed escape', '{"url":"https://example.com","extraction_schema":{"type":"object","properties":{"a":{"$ref":"#/%"}}}}', 'extraction_schema.properties.a.$ref'],
    ['a NUL character in the URL', '{"url":"https://example.com/a\\u0000b"}', 'url'],
    ['a NUL character in a nested field', '{"url":"https://example.com","advanced":{"wait_condition":"x\\u0000"}}', 'advanced.wait_condition'],
  ];
  for (const [what, raw, field] of rawBodies) {
    it(`refuses ${what} with 400 naming ${field}`, async () => {
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', raw);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include(field);
    });
  }

  it('answers a method no route knows with 405 in the envelope', async () => {
    const res = await apiClient(stack.baseUrl, key).call('PROPFIND', '/api/v1/scrape');
    expect(res.status).to.equal(405);
    expect(res.body.error).to.equal('METHOD_NOT_ALLOWED');
    expect(res.body.request_id).to.match(/^req_/);
  });

  it('refuses an extraction schema over 64 KB', async () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) properties[`field_number_${i}`] = { type: 'string', description: 'x'.repeat(10) };
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', {
      url: 'https://example.com',
      extraction_schema: { type: 'object', properties },
    });
    expect(res.status).to.equal(400);
    expect(res.body.details.fields[0].field).to.equal('extraction_schema');
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', '{"url": ');
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('VALIDATION_ERROR');
    expect(res.body.request_id).to.be.a('string');
  });

  it('names the body itself when it is JSON but no object (null, an array, a string)', async () => {
    for (const sent of ['null', '[]', '"x"']) {
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', sent);
      expect(res.status, sent).to.equal(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field), sent).to.deep.equal(['body']);
    }
  });

  it('answers a target body over 1 MB with 400 naming body, and a scrape request over 2 MB with 413', async () => {
    const over = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: 'https://example.com', method: 'POST', body: 'x'.repeat(1_100_000) });
    expect(over.status).to.equal(400);
    expect(over.body.details.fields[0].field).to.equal('body');
    const huge = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: 'https://example.com', method: 'POST', body: 'x'.repeat(2_200_000) });
    expect(huge.status).to.equal(413);
    expect(huge.body.error).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('takes a target body of a full 1 MB, quotes escaped, within the scrape request limit', async () => {
    const body = '"'.repeat(1024 * 1024 - 64 * 1024);
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape/estimate', { url: 'https://example.com', method: 'POST', body });
    expect(res.status).to.equal(200);
    expect(res.body.runnable).to.equal(true);
  });

  it('answers any other route\'s body over 1 MB with 413', async () => {
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape/light', { url: 'https://example.com', pad: 'x'.repeat(1_100_000) });
    expect(res.status).to.equal(413);
    expect(res.body.error).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('answers a non-JSON body with 415', async () => {
    const res = await apiClient(stack.baseUrl, key).call('POST', '/api/v1/scrape', 'url=https://example.com', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).to.equal(415);
    expect(res.body.error).to.equal('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a job id that is not a UUID with 400, and an unknown one with 404', async () => {
    const api = apiClient(stack.baseUrl, key);
    const bad = await api.get('/api/v1/jobs/not-a-uuid');
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal('VALIDATION_ERROR');
    const missing = await api.get('/api/v1/jobs/3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.equal('NOT_FOUND');
  });

  it('answers an unknown route with the envelope and 404', async () => {
    const res = await apiClient(stack.baseUrl, key).get('/api/v1/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.include.keys('error', 'message', 'request_id');
  });
});
