import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../../deploy/local/processes.js';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/pages/profiles', name), 'utf8');

describe('POST /api/v1/extract (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    account = await createTestAccount(stack, 10_000_000);
  });
  afterEach(() => stack.llm.setBehaviour({ kind: 'answer' }));

  const extract = (body: unknown, key = account.key) => apiClient(stack.baseUrl, key).post('/api/v1/extract', body);

  it('answers every format for an HTML product page, billed 2,500 microcents', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await extract({
      content: fixture('product-json-ld.html'),
      formats: ['json', 'markdown', 'text', 'html', 'json_v2', 'rag'],
      source_url: 'https://shop.example.com/p/123',
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    expect(res.body.extract_id).to.match(/^[0-9a-f-]{36}$/);
    expect(res.body.formats).to.have.all.keys('json', 'markdown', 'text', 'html', 'json_v2', 'rag');
    expect(res.body.formats.json.type).to.equal('product');
    expect(res.body.formats.json.fields.name).to.be.a('string').and.not.empty;
    expect(res.body.formats.json.fields.price).to.be.a('number');
    expect(res.body.formats.markdown).to.match(/^#/m);
    expect(res.body.formats.json_v2.sections).to.be.an('array').that.is.not.empty;
    expect(res.body.formats.rag[0]).to.include.keys('content', 'token_count', 'heading_path', 'source_url', 'position');
    expect(res.body.formats.rag[0].source_url).to.equal('https://shop.example.com/p/123');
    expect(res.body).to.include({ credits_used: 2_500, extraction_method: 'algorithmic', model_used: null, version: 'v1' });
    expect(res.body.content_size_chars).to.equal([...fixture('product-json-ld.html')].length);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 2_500);
  });

  it('charges 5,000 microcents above 200,000 characters', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const body = `<html><body><h1>Long</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(3500)}</body></html>`;
    expect(body.length).to.be.greaterThan(200_000);
    const res = await extract({ content: body, formats: ['text'] });
    expect(res.status).to.equal(200);
    expect(res.body.credits_used).to.equal(5_000);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 5_000);
  });

  it('matches a schema with aliases and coercion, with evidence', async () => {
    const res = await extract({
      content: fixture('product-json-ld.html'),
      extraction_schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          price: { type: 'number' },
          in_stock: { type: 'boolean' },
          image_urls: { type: 'array', items: { type: 'string' } },
        },
      },
      evidence: true,
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
    const data = res.body.formats.json;
    expect(data.title).to.be.a('string').and.not.empty;
    expect(data.price).to.be.a('number');
    expect(data.in_stock).to.be.a('boolean');
    expect(data.image_urls).to.be.an('array').that.is.not.empty;
    expect(res.body.filtered_content).to.deep.equal(data);
    expect(res.body.evidence.title.source).to.be.a('string');
  });

  it('answers JSON-LD numbers that overflow as null rather than failing', async () => {
    const page = '<html><head><script type="application/ld+json">{"@type":"Product","name":"Big","offers":{"price":1e999,"priceCurrency":"EUR"}}</script></head><body><h1>Big</h1></body></html>';
    const res = await extract({ content: page, formats: ['json'], extraction_schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.formats.json).to.deep.equal({ name: 'Big', price: null });
  });

  it('takes content holding NUL characters (it never reaches Postgres)', async () => {
    const res = await extract({ content: '<h1>Null\u0000byte</h1><p>text</p>', formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.formats.text).to.contain('text');
  });

  it('stops a document that runs past the processing budget, answering 422 refunded, and keeps serving', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    // marked takes tens of seconds on this; the test stack's budget is 5 s.
    const res = await extract({ content: '_a'.repeat(80_000), content_type: 'markdown', formats: ['html'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(422);
    expect(res.body.error).to.equal('EXTRACTION_FAILED');
    expect(res.body.billing.refunded).to.equal(true);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    const next = await extract({ content: '<p>still here</p>', formats: ['text'] });
    expect(next.status).to.equal(200);
    expect(next.body.formats.text).to.equal('still here');
  });

  it('applies a named profile', async () => {
    const res = await extract({ content: fixture('recipe.html'), extraction_profile: 'recipe', formats: ['json'] });
    expect(res.status).to.equal(200);
    expect(res.body.formats.json.type).to.equal('recipe');
    expect(res.body.formats.json.fields).to.have.all.keys('name', 'ingredients', 'instructions', 'cook_time', 'servings', 'nutrition');
    expect(res.body.formats.json.fields.ingredients).to.be.an('array').that.is.not.empty;
  });

  it('takes Markdown and plain text content', async () => {
    const md = await extract({ content: fixture('article.md'), content_type: 'markdown', formats: ['html', 'json_v2'] });
    expect(md.status).to.equal(200);
    expect(md.body.formats.html).to.match(/<h[1-6]/);
    const text = await extract({ content: 'First paragraph.\n\nSecond paragraph.', content_type: 'text', formats: ['markdown', 'text'] });
    expect(text.status).to.equal(200);
    expect(text.body.formats.text).to.contain('Second paragraph.');
  });

  it('uses source_url as context and never fetches it', async () => {
    const site = await startSiteServer();
    try {
      const res = await extract({
        content: '<html><body><article><h1>T</h1><p>See <a href="/more">more</a>.</p></article></body></html>',
        source_url: `${site.url}/article`,
        formats: ['markdown'],
      });
      expect(res.status).to.equal(200);
      expect(res.body.formats.markdown).to.contain(`${site.url}/more`);
      expect(site.hits('/article')).to.equal(0);
    } finally {
      await site.close();
    }
  });

  it('extracts through the configured LLM with extraction_prompt', async () => {
    stack.llm.requests.length = 0;
    const res = await extract({
      content: '<html><body><h1>Harbour Turbine</h1><p>Price: 129.50</p><p>Colour: green</p></body></html>',
      extraction_prompt: 'Extract the product name, its price and colour.',
      extraction_schema: { type: 'object', properties: { price: { type: 'string' }, colour: { type: 'string' } } },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.extraction_method).to.equal('llm');
    expect(res.body.model_used).to.equal(stack.llm.model);
    expect(res.body.formats.json).to.include({ colour: 'green' });
    expect(stack.llm.requests).to.have.length(1);
    const sent = stack.llm.requests[0]!.body as { response_format: { type: string } };
    expect(sent.response_format.type).to.equal('json_schema');
  });

  it('refunds and answers 502 when the LLM provider fails', async () => {
    stack.llm.setBehaviour({ kind: 'status', status: 500 });
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await extract({ content: '<p>x</p>', extraction_prompt: 'Extract everything.' });
    expect(res.status).to.equal(502);
    expect(res.body.error).to.equal('UPSTREAM_ERROR');
    expect(res.body.details.refunded).to.equal(true);
    expect(res.body.billing).to.deep.equal({ credits_used: 0, refunded: true, reason: 'UPSTREAM_ERROR' });
    expect(res.body.extract_id).to.equal(res.body.details.extract_id);
    expect(res.body.version).to.equal('v1');
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });

  it('answers 422 EXTRACTION_FAILED when the LLM answers with something that is not JSON', async () => {
    stack.llm.setBehaviour({ kind: 'garbage' });
    const res = await extract({ content: '<p>x</p>', extraction_prompt: 'Extract everything.' });
    expect(res.status).to.equal(422);
    expect(res.body.error).to.equal('EXTRACTION_FAILED');
  });

  const refused: Array<[string, () => unknown, number, string]> = [
    ['blank content', () => ({ content: '   \n\t ' }), 422, 'CONTENT_BLANK'],
    ['empty content', () => ({ content: '' }), 422, 'CONTENT_BLANK'],
    ['content over 5 MB', () => ({ content: 'a'.repeat(5 * 1024 * 1024 + 1) }), 422, 'CONTENT_OVER_LIMIT'],
    ['missing content', () => ({ formats: ['json'] }), 400, 'VALIDATION_ERROR'],
    ['a prompt over 2,000 characters', () => ({ content: '<p>x</p>', extraction_prompt: 'x'.repeat(2001) }), 400, 'VALIDATION_ERROR'],
    ['an unknown content_type', () => ({ content: '<p>x</p>', content_type: 'pdf' }), 400, 'VALIDATION_ERROR'],
    ['an unknown profile', () => ({ content: '<p>x</p>', extraction_profile: 'blog' }), 400, 'VALIDATION_ERROR'],
    ['a schema that is not a JSON Schema', () => ({ content: '<p>x</p>', extraction_schema: { type: 'banana' } }), 400, 'VALIDATION_ERROR'],
    ['a schema describing an array', () => ({ content: '<p>x</p>', extraction_schema: { type: 'array', items: { type: 'string' } } }), 400, 'VALIDATION_ERROR'],
    ['a blank prompt', () => ({ content: '<p>x</p>', extraction_prompt: '   ' }), 400, 'VALIDATION_ERROR'],
    ['a NUL character in the prompt', () => ({ content: '<p>x</p>', extraction_prompt: 'a\u0000b' }), 400, 'VALIDATION_ERROR'],
    ['rag overlap not smaller than chunk size', () => ({ content: '<p>x</p>', formats: ['rag'], rag_options: { chunk_size: 64, overlap: 64 } }), 400, 'VALIDATION_ERROR'],
  ];
  for (const [what, body, status, code] of refused) {
    it(`refuses ${what} with ${status} ${code}, charging nothing`, async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const jobs = async () => Number((await stack.pool.query('SELECT count(*) FROM jobs WHERE account_id = $1', [account.accountId])).rows[0].count);
      const jobsBefore = await jobs();
      const res = await extract(body());
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(status);
      expect(res.body.error).to.equal(code);
      expect(res.body.request_id).to.be.a('string');
      expect(res.body.details?.extract_id, 'refused before any job was created').to.equal(undefined);
      expect(await jobs()).to.equal(jobsBefore);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });
  }

  it('refuses an extraction the balance cannot cover with 402', async () => {
    const poor = await createTestAccount(stack, 2_000);
    const res = await extract({ content: '<p>x</p>' }, poor.key);
    expect(res.status).to.equal(402);
    expect(res.body.error).to.equal('INSUFFICIENT_CREDITS');
    expect(res.body.details.required_credits).to.equal(12.5);
  });

  it('needs an API key', async () => {
    const res = await apiClient(stack.baseUrl).post('/api/v1/extract', { content: '<p>x</p>' });
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
  });
});
