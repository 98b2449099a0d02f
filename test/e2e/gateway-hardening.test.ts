import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { createClickHouse } from '../../common/connections.js';
import { MAX_JSON_DEPTH } from '../../common/limits.js';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { rawRequest } from './gateway-raw-http.js';

const UNISSUED_KEY = `sk_test_${'Q'.repeat(32)}`;

function deepArray(bytes: number): string {
  return '['.repeat(bytes / 2) + ']'.repeat(bytes / 2);
}

describe('gateway hardening', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let key: string;
  before(async () => {
    stack = await getStack();
    key = (await createTestAccount(stack, 100_000)).key;
  });

  describe('deeply nested JSON', () => {
    it(`refuses a 100 KB [[[...]]] body with 400 VALIDATION_ERROR naming the ${MAX_JSON_DEPTH}-level limit, and 401 without a key`, async () => {
      const body = `{"url":"https://example.com","x":${deepArray(100 * 1024)}}`;
      const keyed = await apiClient(stack.baseUrl, UNISSUED_KEY).post('/api/v1/scrape', body);
      expect(keyed.status).to.equal(400);
      expect(keyed.body.error).to.equal('VALIDATION_ERROR');
      expect(keyed.body.details.max_depth).to.equal(MAX_JSON_DEPTH);
      const anonymous = await apiClient(stack.baseUrl).post('/api/v1/scrape', body);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body.error).to.equal('MISSING_API_KEY');
    });

    it('answers a 1 MB deep body on every body route, and liveness answers alongside', async () => {
      const body = deepArray(1024 * 1024);
      const [scrape, extract, live] = await Promise.all([
        apiClient(stack.baseUrl, UNISSUED_KEY).post('/api/v1/scrape', body),
        apiClient(stack.baseUrl, UNISSUED_KEY).post('/api/v1/extract', body),
        apiClient(stack.baseUrl).get('/api/v1/health/live'),
      ]);
      for (const res of [scrape, extract]) {
        expect(res.status).to.equal(400);
        expect(res.body.message).to.contain('nested deeper');
      }
      expect(live.status).to.equal(200);
      expect(live.body.status).to.equal('alive');
    });

    it(`accepts nesting up to ${MAX_JSON_DEPTH} levels, brackets inside strings not counted`, async () => {
      const nested = `${'['.repeat(MAX_JSON_DEPTH - 2)}"[[[[{{{{"${']'.repeat(MAX_JSON_DEPTH - 2)}`;
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', `{"url":"https://example.com","advanced":{"cookies":${nested}}}`);
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('advanced.cookies');
    });
  });

  describe('bodies refused unread', () => {
    it('answers a gzip bomb with 413 and closes the connection', async () => {
      const bomb = gzipSync(Buffer.concat([Buffer.from('{"url":"https://example.com","body":"'), Buffer.alloc(64 * 1024 * 1024, 0x61), Buffer.from('"}')]));
      expect(bomb.length).to.be.below(1024 * 1024);
      const res = await rawRequest(stack.baseUrl, {
        method: 'POST',
        path: '/api/v1/scrape',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': UNISSUED_KEY },
        body: bomb,
      });
      expect(res.status).to.equal(413);
      expect(res.body.error).to.equal('PAYLOAD_TOO_LARGE');
      expect(res.headers['connection']).to.equal('close');
      expect(res.closed).to.equal(true);
    });

    it('answers a declared length over the limit with 413 before reading it, and closes the connection', async () => {
      const res = await rawRequest(stack.baseUrl, {
        method: 'POST',
        path: '/api/v1/scrape',
        headers: { 'content-type': 'application/json', 'x-api-key': UNISSUED_KEY },
        contentLength: 50 * 1024 * 1024,
        body: Buffer.from('{"url":'),
      });
      expect(res.status).to.equal(413);
      expect(res.closed).to.equal(true);
    });

    it('answers a whole body over the limit of a declared size within 16 MB with 413, reading it to its end and keeping the connection', async () => {
      for (const path of ['/api/v1/scrape', '/api/v1/scrape/light']) {
        const res = await rawRequest(stack.baseUrl, {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'x-api-key': UNISSUED_KEY },
          body: Buffer.concat([Buffer.from('{"url":"https://example.com","pad":"'), Buffer.alloc(3 * 1024 * 1024, 0x61), Buffer.from('"}')]),
        });
        expect(res.status, path).to.equal(413);
        expect(res.body.error, path).to.equal('PAYLOAD_TOO_LARGE');
        expect(res.headers['connection'], path).to.not.equal('close');
        expect(res.closed, path).to.equal(false);
      }
    });

    it('answers an unknown content encoding with 415 and closes the connection', async () => {
      const res = await rawRequest(stack.baseUrl, {
        method: 'POST',
        path: '/api/v1/scrape',
        headers: { 'content-type': 'application/json', 'content-encoding': 'zstd', 'x-api-key': UNISSUED_KEY },
        body: Buffer.from('{"url":"https://example.com"}'),
      });
      expect(res.status).to.equal(415);
      expect(res.closed).to.equal(true);
    });

    it('answers a chunked text/plain body on a JSON route with 415, not 400', async () => {
      // A body of unknown length goes out chunked, with no Content-Length; the answer may come before it is all sent.
      const res = await rawRequest(stack.baseUrl, {
        method: 'POST',
        path: '/api/v1/scrape',
        headers: { 'content-type': 'text/plain', 'x-api-key': UNISSUED_KEY },
        chunks: [Buffer.from('{"url":'), Buffer.from('"https://example.com"}')],
      });
      expect(res.status).to.equal(415);
      expect(res.body.error).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('rag_options', () => {
    for (const path of ['/api/v1/scrape', '/api/v1/extract']) {
      it(`refuses on ${path} a chunk_size the default overlap does not fit, naming rag_options`, async () => {
        const base = path === '/api/v1/scrape' ? { url: 'https://example.com' } : { content: '<p>x</p>' };
        const res = await apiClient(stack.baseUrl, key).post(path, { ...base, formats: ['rag'], rag_options: { chunk_size: 48 } });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('VALIDATION_ERROR');
        expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('rag_options.overlap');
      });
    }
  });

  describe('Retry-After', () => {
    it('comes with SERVICE_UNAVAILABLE', async () => {
      // Tier 3.5 (the premium proxy pool) has no pool on this deployment.
      const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: 'https://example.com/', cost_controls: { force_tier: '3.5' } });
      expect(res.status).to.equal(503);
      expect(res.body.error).to.equal('SERVICE_UNAVAILABLE');
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });

  describe('X-Forwarded-For', () => {
    it('does not change the client address recorded for a request from an untrusted peer', async () => {
      const res = await apiClient(stack.baseUrl).get('/api/v1/status', { 'X-Forwarded-For': '203.0.113.9' });
      expect(res.status).to.equal(200);
      const requestId = res.headers.get('x-request-id')!;
      expect(requestId).to.match(/^[A-Za-z0-9_-]+$/);
      const ch = createClickHouse(stack.config);
      try {
        let rows: Array<{ client_ip: string }> = [];
        for (let i = 0; i < 60 && rows.length === 0; i++) {
          const result = await ch.query({ query: `SELECT client_ip FROM request_logs WHERE request_id = '${requestId}'`, format: 'JSONEachRow' });
          rows = (await result.json()) as Array<{ client_ip: string }>;
          if (rows.length === 0) await new Promise((r) => setTimeout(r, 250));
        }
        expect(rows).to.have.length(1);
        expect(rows[0]!.client_ip).to.equal('127.0.0.1');
      } finally {
        await ch.close();
      }
    });
  });

  it('refuses a body on a route that takes none', async () => {
    const res = await apiClient(stack.baseUrl).call('GET', '/api/v1/health/live', undefined, {});
    expect(res.status).to.equal(200);
    const withBody = await rawRequest(stack.baseUrl, {
      method: 'GET',
      path: '/api/v1/health/live',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"a":1}'),
    });
    expect(withBody.status).to.equal(400);
    expect(withBody.body.error).to.equal('VALIDATION_ERROR');
  });
});
