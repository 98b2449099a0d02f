import { expect } from 'chai';
import { decodeRequestLogBatch } from '../../common/request-log-codec.js';
import { gatewayWithoutControlPlane } from '../support/gateway-without-control-plane.js';

/** The gateway's whole route table, with a control plane that never answers: routing and request checks only. */
describe('gateway route dispatch', function () {
  this.timeout(30_000);
  let gateway: Awaited<ReturnType<typeof gatewayWithoutControlPlane>>;
  let baseUrl: string;
  const key = { 'X-API-Key': 'sk_test_AnythingAnythingAnythingAnything' };
  const jobId = '7d4bd7b2-2a43-4d3e-8f53-1c1b8f2f5f00';

  before(async () => {
    gateway = await gatewayWithoutControlPlane();
    baseUrl = gateway.baseUrl;
  });
  after(() => gateway.close());

  const call = (method: string, path: string, headers: Record<string, string> = {}) => fetch(`${baseUrl}${path}`, { method, headers });

  it('runs a parameterised route with its parameter decoded (the control plane being down, a 503)', async () => {
    const res = await call('GET', `/api/v1/jobs/${jobId}`, key);
    expect(res.status).to.equal(503);
    expect(((await res.json()) as { error: string }).error).to.equal('SERVICE_UNAVAILABLE');
  });

  it('matches paths without regard to case or a trailing slash', async () => {
    for (const path of ['/API/V1/Health/Live', '/api/v1/health/live/']) {
      const res = await call('GET', path);
      expect(res.status, path).to.equal(200);
      expect(await res.json(), path).to.deep.equal({ status: 'alive' });
    }
  });

  it('answers HEAD on a GET route without a body', async () => {
    const res = await call('HEAD', '/api/v1/health/live');
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
  });

  it('answers OPTIONS with the methods the path takes', async () => {
    const res = await call('OPTIONS', '/api/v1/scrape');
    expect(res.status).to.equal(200);
    expect(res.headers.get('allow')?.split(', ')).to.have.members(['POST']);
  });

  it('refuses another method on a known path with 405 and an Allow header', async () => {
    const res = await call('DELETE', '/api/v1/health/live');
    const body = (await res.json()) as { error: string; message: string; request_id: string };
    expect(res.status).to.equal(405);
    expect(body.error).to.equal('METHOD_NOT_ALLOWED');
    expect(body.request_id).to.match(/^req_/);
    expect(res.headers.get('allow')?.split(', ')).to.have.members(['GET', 'HEAD']);
  });

  it('refuses a method the API does not answer with 405, wherever it is sent', async () => {
    for (const path of ['/api/v1/scrape', '/no/such/path']) {
      const res = await call('PROPFIND', path);
      expect(res.status, path).to.equal(405);
      expect(((await res.json()) as { error: string }).error).to.equal('METHOD_NOT_ALLOWED');
    }
  });

  it('answers an unknown path with 404 NOT_FOUND', async () => {
    const res = await call('GET', '/api/v1/no-such-thing', key);
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { error: string }).error).to.equal('NOT_FOUND');
  });

  it('hands a long path parameter to the route, whose validation names the field', async () => {
    const res = await call('GET', `/api/v1/jobs/${'a'.repeat(500)}`, key);
    const body = (await res.json()) as { error: string; details: { fields: { field: string }[] } };
    expect(res.status).to.equal(400);
    expect(body.error).to.equal('VALIDATION_ERROR');
    expect(body.details.fields.map((f) => f.field)).to.deep.equal(['job_id']);
  });

  it('refuses malformed percent-encoding in the path with 400', async () => {
    const res = await call('GET', '/api/v1/jobs/%E0%A4%A', key);
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.equal('VALIDATION_ERROR');
  });

  it('records requests in the request log, except liveness and readiness probes', async () => {
    const paths = ['/api/v1/health/live', '/api/v1/health/ready', '/health-check', '/api/v1/health', '/api/v1/status', '/api/v1/nothing-here'];
    const ids: string[] = [];
    for (const path of paths) {
      const res = await call('GET', path);
      await res.arrayBuffer();
      ids.push(res.headers.get('x-request-id') ?? '');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const records = gateway.published.flatMap((batch) => decodeRequestLogBatch(batch)).filter((r) => ids.includes(r.requestId));
    expect(records.map((r) => r.path)).to.deep.equal(['/api/v1/status', '/api/v1/nothing-here']);
    expect(records.map((r) => r.route)).to.deep.equal(['GET /api/v1/status', '/api/v1/nothing-here']);
  });
});
