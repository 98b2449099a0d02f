import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../../deploy/local/processes.js';
import { startSiteServer, type SiteRoute } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

const PROFILE_PAGES = ['product-json-ld.html', 'product-microdata.html', 'article-json-ld-graph.html', 'job-posting.html', 'recipe.html'];

/** The profile fixture pages, served as a site so the scrape path fetches them like any page. */
const profileRoutes: SiteRoute[] = PROFILE_PAGES.map((name) => {
  const body = readFileSync(path.join(ROOT, 'test/fixtures/pages/profiles', name));
  return {
    path: `/profiles/${name}`,
    handle: ({ res }) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
      res.end(body);
    },
  };
});

const jsonRoute = (path: string, body: string, type = 'application/json'): SiteRoute => ({
  path,
  handle: ({ res }) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  },
});
const PRODUCT_JSON = JSON.stringify({ title: 'Harbour Turbine', price: '129.50', in_stock: 'yes', colour: 'green', images: ['/a.jpg'] });
const apiRoutes: SiteRoute[] = [
  jsonRoute('/api/huge-number', '{"n": 1e400, "m": -1e999, "ok": 1.5}'),
  jsonRoute('/api/deep', `${'['.repeat(100_000)}1${']'.repeat(100_000)}`),
  jsonRoute('/api/product', PRODUCT_JSON),
  jsonRoute('/raw/product.json', PRODUCT_JSON, 'text/plain; charset=utf-8'),
];

describe('POST /api/v1/scrape: structured outputs through the worker pipeline', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let account: { accountId: string; key: string };

  before(async () => {
    stack = await getStack();
    site = await startSiteServer({ routes: [...profileRoutes, ...apiRoutes] });
    account = await createTestAccount(stack, 10_000_000);
  });
  after(async () => site.close());
  afterEach(() => stack.llm.setBehaviour({ kind: 'answer' }));

  const scrape = (body: Record<string, unknown>) => apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', body);

  it('fills the detected profile in content.json from JSON-LD', async () => {
    const res = await scrape({ url: `${site.url}/profiles/product-json-ld.html`, formats: ['json'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    const json = res.body.content.json;
    expect(json.type).to.equal('product');
    expect(json.fields).to.include({ name: 'Aeropress Clear Coffee Maker', price: 39.95, currency: 'GBP', brand: 'AeroPress' });
    expect(json.fields.images).to.include('https://cdn.northside.example/img/aeropress-clear-1.jpg');
    expect(json.sources.json_ld).to.be.an('array').with.length.greaterThan(0);
    expect(res.body.extraction_method).to.equal('algorithmic');
  });

  it('reads microdata pages into the same product fields', async () => {
    const res = await scrape({ url: `${site.url}/profiles/product-microdata.html`, formats: ['json'] });
    expect(res.status).to.equal(200);
    expect(res.body.content.json.type).to.equal('product');
    expect(res.body.content.json.fields.name).to.be.a('string').and.not.empty;
    expect(res.body.content.json.fields.price).to.be.a('number');
    expect(res.body.content.json.sources.microdata).to.be.an('array').that.is.not.empty;
  });

  it('applies extraction_profile: article and job_posting give exactly their fields', async () => {
    const article = await scrape({ url: `${site.url}/profiles/article-json-ld-graph.html`, formats: ['json'], extraction_profile: 'article' });
    expect(article.status).to.equal(200);
    expect(article.body.content.json.type).to.equal('article');
    expect(article.body.content.json.fields).to.have.all.keys('title', 'author', 'published_date', 'content', 'summary', 'images');
    expect(article.body.content.json.fields.title).to.be.a('string').and.not.empty;

    const job = await scrape({ url: `${site.url}/profiles/job-posting.html`, formats: ['json'], extraction_profile: 'job_posting' });
    expect(job.status).to.equal(200);
    expect(job.body.content.json.type).to.equal('job_posting');
    expect(job.body.content.json.fields).to.have.all.keys('title', 'company', 'location', 'salary', 'description', 'requirements');
    expect(job.body.content.json.fields.company).to.be.a('string').and.not.empty;
  });

  it('answers an extraction_schema in filtered_content, matching aliases and coercing types', async () => {
    const res = await scrape({
      url: `${site.url}/profiles/product-json-ld.html`,
      formats: ['markdown', 'json'],
      extraction_schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          price: { type: 'number' },
          in_stock: { type: 'boolean' },
          image_urls: { type: 'array', items: { type: 'string' } },
          rating: { type: 'number' },
        },
      },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.filtered_content).to.deep.include({ title: 'Aeropress Clear Coffee Maker', price: 39.95, in_stock: true, rating: 4.8 });
    expect(res.body.filtered_content.image_urls).to.be.an('array').with.length.greaterThan(1);
    // On scrape, content.json stays the profile output; the schema's answer is filtered_content.
    expect(res.body.content.json.type).to.equal('product');
  });

  it('returns json_v2 byte-identical on two scrapes of the same page', async () => {
    const body = { url: `${site.url}/profiles/recipe.html`, formats: ['json_v2'] };
    const first = await scrape(body);
    const second = await scrape(body);
    expect(first.status).to.equal(200);
    expect(first.body.content.json_v2.sections).to.be.an('array').that.is.not.empty;
    expect(JSON.stringify(second.body.content.json_v2)).to.equal(JSON.stringify(first.body.content.json_v2));
  });

  it('chunks the page for rag with the requested chunk size and the page URL on every chunk', async () => {
    const url = `${site.url}/profiles/article-json-ld-graph.html`;
    const res = await scrape({ url, formats: ['rag'], rag_options: { chunk_size: 64, overlap: 8 } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    const chunks = res.body.content.rag as Array<{ position: number; token_count: number; source_url: string; heading_path: string[] }>;
    expect(chunks.length).to.be.greaterThan(1);
    chunks.forEach((chunk, i) => {
      expect(chunk.position).to.equal(i);
      expect(chunk.source_url).to.equal(url);
      expect(chunk.token_count).to.be.within(1, 64);
      expect(chunk.heading_path).to.be.an('array');
    });
  });

  it('runs extraction_prompt through the LLM and reports the model, charging the scrape once', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    stack.llm.requests.length = 0;
    const res = await scrape({
      url: `${site.url}/profiles/product-json-ld.html`,
      formats: ['markdown'],
      extraction_prompt: 'Extract the product name and its price.',
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.extraction_method).to.equal('llm');
    expect(res.body.model_used).to.equal(stack.llm.model);
    expect(res.body.filtered_content).to.be.an('object');
    expect(stack.llm.requests).to.have.length(1);
    const sent = JSON.stringify(stack.llm.requests[0]!.body);
    expect(sent).to.contain('Aeropress Clear Coffee Maker');
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - res.body.billing.total_credits * 200);
  });

  it('serves a JSON API body with numbers JSON cannot write back as nulls, and polls it back', async () => {
    const res = await scrape({ url: `${site.url}/api/huge-number`, formats: ['json'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.content.json).to.deep.equal({ n: null, m: null, ok: 1.5 });
    const polled = await apiClient(stack.baseUrl, account.key).get(`/api/v1/jobs/${res.body.job_id}`);
    expect(polled.status).to.equal(200);
    expect(polled.body.result.content.json.ok).to.equal(1.5);
  });

  it('serves a JSON API body nested 100,000 levels deep, cut at a fixed depth', async () => {
    const res = await scrape({ url: `${site.url}/api/deep`, formats: ['json', 'text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.extraction_method).to.equal('raw_json_api');
    expect(JSON.stringify(res.body.content.json)).to.match(/^\[+null\]+$/);
  });

  it('matches an extraction_schema against a JSON API body into filtered_content', async () => {
    const res = await scrape({
      url: `${site.url}/api/product`,
      formats: ['json'],
      extraction_schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' }, availability: { type: 'boolean' } } },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.extraction_method).to.equal('raw_json_api');
    expect(res.body.filtered_content).to.deep.equal({ name: 'Harbour Turbine', price: 129.5, availability: true });
    expect(res.body.content.json).to.deep.include({ colour: 'green' });
  });

  it('gives a JSON API body to the LLM for an extraction_prompt', async () => {
    stack.llm.requests.length = 0;
    const res = await scrape({
      url: `${site.url}/api/product`,
      formats: ['json'],
      extraction_prompt: 'Extract the colour.',
      extraction_schema: { type: 'object', properties: { colour: { type: 'string' } } },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.extraction_method).to.equal('llm');
    expect(res.body.filtered_content).to.have.all.keys('colour');
    expect(res.body.model_used).to.equal(stack.llm.model);
    expect(JSON.stringify(stack.llm.requests[0]!.body)).to.contain('Harbour Turbine');
  });

  it('reads JSON served as text/plain as a JSON API, with rag and json_v2 built from it', async () => {
    const res = await scrape({ url: `${site.url}/raw/product.json`, formats: ['json', 'rag', 'json_v2'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.extraction_method).to.equal('raw_json_api');
    expect(res.body.content.json.title).to.equal('Harbour Turbine');
    expect(res.body.content.rag[0].content).to.contain('Harbour Turbine');
    expect(JSON.stringify(res.body.content.json_v2)).to.contain('Harbour Turbine');
  });

  it('fails the scrape with a refund when the LLM provider is down', async () => {
    stack.llm.setBehaviour({ kind: 'status', status: 503 });
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await scrape({
      url: `${site.url}/profiles/product-json-ld.html`,
      formats: ['markdown'],
      extraction_prompt: 'Extract the product name.',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body.error).to.equal('UPSTREAM_ERROR');
    expect(res.body.billing.refunded).to.equal(true);
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
  });
});
