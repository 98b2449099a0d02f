import { expect } from 'chai';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';

describe('health, status and the API reference', function () {
  this.timeout(60_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  it('answers /api/v1/health and /health-check with status ok', async () => {
    const api = apiClient(stack.baseUrl);
    for (const path of ['/api/v1/health', '/health-check']) {
      const res = await api.get(path);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ status: 'ok' });
    }
  });

  it('answers readiness and liveness', async () => {
    const api = apiClient(stack.baseUrl);
    expect((await api.get('/api/v1/health/ready')).body).to.deep.equal({ ready: true });
    const live = await api.get('/api/v1/health/live');
    expect(live.status).to.equal(200);
    expect(live.body.status).to.equal('alive');
  });

  it('reports every dependency and the worker pool as operational on /api/v1/status', async () => {
    const res = await apiClient(stack.baseUrl).get('/api/v1/status');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('operational');
    expect(res.body.components).to.deep.equal({
      api: 'operational',
      database: 'operational',
      cache: 'operational',
      queue: 'operational',
      analytics: 'operational',
      worker: 'operational',
    });
    expect(res.body.workers['fetch-t1']).to.be.at.least(1);
  });

  it('reports extraction readiness to a caller with a key: the extract pool and LLM extraction', async () => {
    expect((await apiClient(stack.baseUrl).get('/api/v1/health/extraction')).status).to.equal(401);
    await waitForWorkers(stack.baseUrl, 60_000, 'extract');
    const { key } = await createTestAccount(stack, 0);
    const res = await apiClient(stack.baseUrl, key).get('/api/v1/health/extraction');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'available', llm_configured: true });
    expect(res.body.workers).to.be.at.least(1);
    expect(res.body.message).to.contain('extract worker');
  });

  it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
    const res = await apiClient(stack.baseUrl).get('/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.paths).to.include.keys(
      '/api/v1/scrape',
      '/api/v1/scrape/estimate',
      '/api/v1/scrape/js',
      '/api/v1/scrape/light',
      '/api/v1/scrape/ocr',
      '/api/v1/scrape/pdf',
      '/api/v1/jobs/{job_id}',
      '/api/v1/extract',
      '/api/v1/health',
      '/health-check',
      '/api/v1/health/ready',
      '/api/v1/health/live',
      '/api/v1/health/jobs',
      '/api/v1/status',
    );
    const scrape = res.body.components.schemas.ScrapeRequest;
    expect(scrape.required).to.deep.equal(['url']);
    expect(scrape.properties.timeout).to.include({ minimum: 1, maximum: 300, default: 90 });
    expect(scrape.properties.formats.items.enum).to.include.members(['markdown', 'json', 'rag']);
    expect(scrape.additionalProperties).to.equal(false);
    expect(res.body.components.securitySchemes.ApiKey).to.deep.equal({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('serves a readable reference page', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v1/docs`);
    expect(res.headers.get('content-type')).to.match(/text\/html/);
    const html = await res.text();
    expect(html).to.contain('/api/v1/scrape');
    expect(html).to.contain('extraction_schema');
    expect(html).to.contain('X-API-Key');
  });

  it('has the section the deprecated routes link to, listing each of them', async () => {
    const legacy = await fetch(`${stack.baseUrl}/api/v1/scrape/light`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const link = legacy.headers.get('link') ?? '';
    const anchor = /#([\w-]+)>/.exec(link)?.[1];
    expect(anchor).to.equal('deprecated-routes');
    const html = await (await fetch(`${stack.baseUrl}/api/v1/docs`)).text();
    const section = html.slice(html.indexOf(`id="${anchor}"`), html.indexOf('</section>', html.indexOf(`id="${anchor}"`)));
    for (const mode of ['js', 'light', 'ocr', 'pdf']) expect(section).to.contain(`POST /api/v1/scrape/${mode}`);
  });
});
