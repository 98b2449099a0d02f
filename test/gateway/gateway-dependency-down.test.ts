import { expect } from 'chai';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../common/limits.js';
import { gatewayWithoutControlPlane } from '../support/gateway-without-control-plane.js';

describe('gateway with its control plane unreachable', function () {
  this.timeout(30_000);
  let gateway: Awaited<ReturnType<typeof gatewayWithoutControlPlane>>;
  let baseUrl: string;

  before(async () => {
    gateway = await gatewayWithoutControlPlane();
    baseUrl = gateway.baseUrl;
  });
  after(() => gateway.close());

  it('answers readiness 503 with Retry-After, and liveness 200', async () => {
    const ready = await fetch(`${baseUrl}/api/v1/health/ready`);
    expect(ready.status).to.equal(503);
    expect(ready.headers.get('retry-after')).to.equal(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(await ready.json()).to.deep.equal({ ready: false });
    const live = await fetch(`${baseUrl}/api/v1/health/live`);
    expect(live.status).to.equal(200);
  });

  it('answers an API call 503 in the error envelope with Retry-After, never 500', async () => {
    const res = await fetch(`${baseUrl}/api/v1/jobs/7d4bd7b2-2a43-4d3e-8f53-1c1b8f2f5f00`, { headers: { 'X-API-Key': 'sk_test_AnythingAnythingAnythingAnything' } });
    const body = (await res.json()) as { error: string; request_id: string };
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(body.error).to.equal('SERVICE_UNAVAILABLE');
    expect(body.request_id).to.be.a('string');
  });
});
