import { expect } from 'chai';
import { freePort } from '../../deploy/local/isolated-stack.js';
import { startRole, stopProcess, waitForHttp, type ManagedProcess } from '../../deploy/local/processes.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';

describe('API keys: revocation on every control-plane replica', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let second: ManagedProcess[] = [];
  let secondUrl: string;
  const output: string[] = [];

  before(async () => {
    stack = await getStack();
    // A second control plane with its own gateway, on the same database, Redis and NATS.
    const [gatewayPort, controlPlanePort] = [await freePort(), await freePort()];
    secondUrl = `http://127.0.0.1:${gatewayPort}`;
    const env = {
      ...stack.env,
      GATEWAY_PORT: String(gatewayPort),
      CONTROL_PLANE_PORT: String(controlPlanePort),
      CONTROL_PLANE_URL: `http://127.0.0.1:${controlPlanePort}`,
      TRAWL_PUBLIC_BASE_URL: secondUrl,
    };
    second = (['control-plane', 'gateway'] as const).map((role) => startRole(role, env, (r, line) => output.push(`${r} | ${line}`)));
    try {
      await waitForHttp(`${secondUrl}/api/v1/health/ready`, 60_000);
    } catch (err) {
      process.stderr.write(output.slice(-30).join('\n') + '\n');
      throw err;
    }
  });
  after(async () => {
    await Promise.all(second.map((p) => stopProcess(p, 10_000)));
  });

  it('refuses a revoked key with 401 INVALID_API_KEY on the very next request to the other replica', async () => {
    const user = await createTestUser(stack);
    const created = await apiClient(stack.baseUrl).post('/api/v1/api-keys', { name: 'shared' }, { Authorization: `Bearer ${user.token}` });
    const key = created.body.key as string;
    // Both control planes have looked the key up and hold it in their caches.
    expect((await apiClient(stack.baseUrl, key).get('/api/v1/api-keys')).status).to.equal(200);
    expect((await apiClient(secondUrl, key).get('/api/v1/api-keys')).status).to.equal(200);

    const revoked = await apiClient(stack.baseUrl).call('DELETE', `/api/v1/api-keys/${created.body.id}`, undefined, { Authorization: `Bearer ${user.token}` });
    expect(revoked.status).to.equal(204);
    const other = await apiClient(secondUrl, key).get('/api/v1/api-keys');
    expect(other.status).to.equal(401);
    expect(other.body.error).to.equal('INVALID_API_KEY');
    expect((await apiClient(stack.baseUrl, key).get('/api/v1/api-keys')).status).to.equal(401);
  });

  it('refuses the old secret of a key regenerated on one replica on the other at once', async () => {
    const user = await createTestUser(stack);
    const created = await apiClient(secondUrl).post('/api/v1/api-keys', { name: 'rotating' }, { Authorization: `Bearer ${user.token}` });
    expect((await apiClient(stack.baseUrl, created.body.key).get('/api/v1/api-keys')).status).to.equal(200);
    const renewed = await apiClient(secondUrl).post(`/api/v1/api-keys/${created.body.id}/regenerate`, undefined, { Authorization: `Bearer ${user.token}` });
    expect(renewed.status).to.equal(200);
    expect((await apiClient(stack.baseUrl, created.body.key).get('/api/v1/api-keys')).status).to.equal(401);
    expect((await apiClient(stack.baseUrl, renewed.body.key).get('/api/v1/api-keys')).status).to.equal(200);
  });
});
