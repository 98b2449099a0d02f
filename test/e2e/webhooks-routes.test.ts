import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';
import { deliveriesTo, eventually } from '../support/webhooks.js';
import { createApiKey } from '../../control-plane/accounts/api-keys.js';
import { applyLedgerEntry } from '../../control-plane/billing/ledger.js';
import { grantEnterprise } from '../../deploy/local/dev-account.js';

describe('User webhooks: routes, signing and per-request targets (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let receiver: WebhookReceiver;
  let user: TestUser;
  const session = (u: TestUser) => ({ Authorization: `Bearer ${u.token}` });
  const api = () => apiClient(stack.baseUrl);

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    receiver = await startWebhookReceiver();
    user = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
  });
  after(async () => {
    await site.close();
    await receiver.close();
  });

  const create = (u: TestUser, body: unknown) => api().post('/api/v1/user-webhooks', body, session(u));

  it('creates a webhook with a one-time whsec_ secret and lists it without the secret', async () => {
    const created = await create(user, { name: 'jobs', url: `${receiver.url}?list`, events: ['job.completed'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ name: 'jobs', url: `${receiver.url}?list`, is_active: true, failure_count: 0, last_success_at: null });
    expect(created.body.secret).to.match(/^whsec_[0-9a-f]{64}$/);
    const listed = await api().get('/api/v1/user-webhooks', session(user));
    expect(listed.status).to.equal(200);
    const mine = listed.body.webhooks.find((w: { id: string }) => w.id === created.body.id);
    expect(mine).to.not.have.property('secret');
    expect(listed.body.total).to.equal(listed.body.webhooks.length);
  });

  it('refuses a duplicate URL with 409, an http URL and a private address with 400', async () => {
    const url = `${receiver.url}?dup`;
    expect((await create(user, { name: 'a', url, events: ['job.failed'] })).status).to.equal(201);
    const dup = await create(user, { name: 'b', url, events: ['job.failed'] });
    expect(dup.status).to.equal(409);
    expect(dup.body.error).to.equal('WEBHOOK_URL_EXISTS');
    const plain = await create(user, { name: 'c', url: receiver.url.replace('https:', 'http:'), events: ['job.failed'] });
    expect(plain.status).to.equal(400);
    const loopback = await create(user, { name: 'd', url: 'https://127.0.0.2:8443/hook', events: ['job.failed'] });
    expect(loopback.status).to.equal(400);
    expect(loopback.body.error).to.equal('URL_NOT_ALLOWED');
    const metadata = await create(user, { name: 'e', url: 'https://169.254.169.254/hook', events: ['job.failed'] });
    expect(metadata.body.error).to.equal('URL_NOT_ALLOWED');
    const unknown = await create(user, { name: 'f', url: `${receiver.url}?f`, events: ['job.exploded'] });
    expect(unknown.status).to.equal(400);
  });

  it('allows 10 webhooks per user and refuses the 11th', async () => {
    const other = await createTestUser(stack);
    for (let i = 0; i < 10; i += 1) {
      expect((await create(other, { name: `w${i}`, url: `${receiver.url}?n=${i}`, events: ['job.completed'] })).status).to.equal(201);
    }
    const eleventh = await create(other, { name: 'w10', url: `${receiver.url}?n=10`, events: ['job.completed'] });
    expect(eleventh.status).to.equal(409);
    expect(eleventh.body.error).to.equal('WEBHOOK_LIMIT_REACHED');
  });

  it("answers another user's webhook as not found", async () => {
    const created = await create(user, { name: 'mine', url: `${receiver.url}?mine`, events: ['job.completed'] });
    const stranger = await createTestUser(stack);
    for (const res of [
      await api().post(`/api/v1/user-webhooks/${created.body.id}/rotate-secret`, undefined, session(stranger)),
      await api().get(`/api/v1/user-webhooks/${created.body.id}/deliveries`, session(stranger)),
      await api().post(`/api/v1/user-webhooks/${created.body.id}/test`, {}, session(stranger)),
    ]) {
      expect(res.status).to.equal(404);
    }
  });

  it('sends a signed test event that a third-party verifier accepts, and rotating the secret changes the signature', async () => {
    const created = await create(user, { name: 'test', url: `${receiver.url}?test`, events: ['job.completed'] });
    const res = await api().post(`/api/v1/user-webhooks/${created.body.id}/test`, { event_type: 'job.failed' }, session(user));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body, JSON.stringify(res.body)).to.include({ success: true, status_code: 200, error: null });
    const [got] = await receiver.waitFor(1, 5_000, (r) => r.event === 'job.failed' && r.rawBody.includes('"test":true'));
    expect(await verify(created.body.secret, got!.rawBody.toString('utf8'), String(got!.headers['x-service-signature']))).to.equal(true);

    const rotated = await api().post(`/api/v1/user-webhooks/${created.body.id}/rotate-secret`, undefined, session(user));
    expect(rotated.body.secret).to.match(/^whsec_/).and.not.equal(created.body.secret);
    await api().post(`/api/v1/user-webhooks/${created.body.id}/test`, {}, session(user));
    const later = await receiver.waitFor(1, 5_000, (r) => r.event === 'job.completed' && r.rawBody.includes('"test":true'));
    const last = later[later.length - 1]!;
    expect(await verify(rotated.body.secret, last.rawBody.toString('utf8'), String(last.headers['x-service-signature']))).to.equal(true);
    expect(await verify(created.body.secret, last.rawBody.toString('utf8'), String(last.headers['x-service-signature']))).to.equal(false);
  });

  it('delivers a job to the subscription and to its own webhook_url; the webhook_url gets only its job', async () => {
    const owner = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
    const sub = await create(owner, { name: 'all', url: `${receiver.url}?sub=${owner.userId}`, events: ['job.completed', 'job.failed'] });
    const perRequest = `${receiver.url}?req=${owner.userId}`;
    const keyApi = apiClient(stack.baseUrl, owner.key);
    const withHook = await keyApi.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'], webhook_url: perRequest });
    const without = await keyApi.post('/api/v1/scrape', { url: `${site.url}/status/404`, formats: ['markdown'] });
    expect(withHook.status).to.equal(200);
    const jobA = withHook.body.job_id as string;
    const jobB = (without.body.job_id ?? without.body.details?.job_id) as string;
    expect(jobB).to.be.a('string');

    const subPath = new URL(sub.body.url).search;
    const subGot = await receiver.waitFor(2, 20_000, (r) => r.path.endsWith(subPath));
    for (const r of subGot) {
      expect(await verify(sub.body.secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).to.equal(true);
    }
    const perRequestDeliveries = await eventually(async () => {
      const rows = await deliveriesTo(stack, perRequest);
      return rows.length >= 2 && rows.every((r) => r.status === 'success') ? rows : undefined;
    }, 20_000, 'per-request deliveries');
    const subDeliveries = await eventually(async () => {
      const rows = await deliveriesTo(stack, sub.body.url);
      return rows.length >= 2 && rows.every((r) => r.status === 'success') ? rows : undefined;
    }, 20_000, 'subscription deliveries');
    // The per-request URL: job.started and job.completed of job A only.
    expect(perRequestDeliveries.map((d) => d.event_type).sort()).to.deep.equal(['job.completed', 'job.started']);
    const bodies = await stack.pool.query<{ body: string }>(
      'SELECT e.body FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id WHERE d.url = $1',
      [perRequest],
    );
    expect(bodies.rows.every((r) => r.body.includes(jobA) && !r.body.includes(jobB))).to.equal(true);
    // The subscription: the completed job A and the failed job B, nothing it did not ask for.
    expect(subDeliveries.map((d) => d.event_type).sort()).to.deep.equal(['job.completed', 'job.failed']);
    const listed = await api().get(`/api/v1/user-webhooks/${sub.body.id}/deliveries?status=success`, session(owner));
    expect(listed.status).to.equal(200);
    expect(listed.body.total).to.equal(2);
    expect(listed.body.deliveries[0]).to.include({ status: 'success', attempt_count: 1, max_attempts: 3, response_status_code: 200 });
    const none = await api().get(`/api/v1/user-webhooks/${sub.body.id}/deliveries?status=failed`, session(owner));
    expect(none.body).to.deep.equal({ deliveries: [], total: 0 });
    const afterSuccess = (await api().get('/api/v1/user-webhooks', session(owner))).body.webhooks[0];
    expect(afterSuccess.last_success_at).to.be.a('string');
  });

  it('signs per-request deliveries with the account secret the signing-secret route shows', async () => {
    const owner = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
    const shown = await apiClient(stack.baseUrl, owner.key).get('/api/v1/webhook-signing-secret');
    expect(shown.status).to.equal(200);
    expect(shown.body.secret).to.match(/^whsec_/);
    const url = `${receiver.url}?signed=${owner.userId}`;
    const res = await apiClient(stack.baseUrl, owner.key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['text'], webhook_url: url });
    const got = await receiver.waitFor(1, 20_000, (r) => r.event === 'job.completed' && r.rawBody.includes(res.body.job_id));
    expect(await verify(shown.body.secret, got[0]!.rawBody.toString('utf8'), String(got[0]!.headers['x-service-signature']))).to.equal(true);
    const rotated = await api().post('/api/v1/webhook-signing-secret/rotate', undefined, session(owner));
    expect(rotated.body.secret).to.match(/^whsec_/).and.not.equal(shown.body.secret);
    const byKey = await apiClient(stack.baseUrl, owner.key).post('/api/v1/webhook-signing-secret/rotate', undefined);
    expect(byKey.status).to.equal(401);
  });

  it("delivers an organization account's events to its members' webhooks, not to other users'", async () => {
    const member = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
    const outsider = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
    const org = await api().post('/api/v1/organizations', { name: 'webhook org' }, session(member));
    expect(org.status).to.equal(201);
    await grantEnterprise(stack.pool, org.body.account_id);
    await applyLedgerEntry(stack.pool, { accountId: org.body.account_id, kind: 'adjustment', amountMicrocents: 1_000_000, reference: `org-funds:${org.body.id}` });
    const { key } = await createApiKey(stack.pool, { accountId: org.body.account_id, name: 'org', environment: 'live', masterKeyHex: stack.config.masterKeyHex });
    const mine = await create(member, { name: 'org', url: `${receiver.url}?org-member`, events: ['job.completed'] });
    const theirs = await create(outsider, { name: 'org', url: `${receiver.url}?org-outsider`, events: ['job.completed'] });
    const res = await apiClient(stack.baseUrl, key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['text'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const got = await receiver.waitFor(1, 20_000, (r) => r.path.endsWith('?org-member') && r.rawBody.includes(res.body.job_id));
    expect(await verify(mine.body.secret, got[0]!.rawBody.toString('utf8'), String(got[0]!.headers['x-service-signature']))).to.equal(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(await deliveriesTo(stack, theirs.body.url)).to.have.length(0);
  });

  it('posts job.started and job.completed of a scrape to its webhook_url, signed with the account secret', async () => {
    const keyApi = apiClient(stack.baseUrl, user.key);
    const url = `${receiver.url}?job=completed`;
    const res = await keyApi.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'], webhook_url: url });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const got = await receiver.waitFor(2, 20_000, (r) => r.path.endsWith('?job=completed') && r.rawBody.includes(res.body.job_id));
    const events = got.map((r) => r.event).sort();
    expect(events).to.deep.equal(['job.completed', 'job.started']);
    const completed = got.find((r) => r.event === 'job.completed')!;
    const body = JSON.parse(completed.rawBody.toString('utf8'));
    expect(body.event).to.equal('job.completed');
    expect(body.data).to.include({ job_id: res.body.job_id, batch_id: null, url: `${site.url}/article`, status: 'succeeded' });
    expect(body.data.result.status_code).to.equal(200);
    expect(body.data.result.content).to.be.a('string').and.match(/^#\s/m);
    expect(body.data.billing).to.include({ total_credits: 1, tier_used: '1' });
    expect(body.data.timing.queued_at).to.match(/Z$/);
    const secret = (await keyApi.get('/api/v1/webhook-signing-secret')).body.secret;
    expect(secret).to.match(/^whsec_/);
    expect(await verify(secret, completed.rawBody.toString('utf8'), String(completed.headers['x-service-signature']))).to.equal(true);
    expect(completed.headers['user-agent']).to.equal('Service-Webhook/1.0');
    expect(completed.headers['content-type']).to.equal('application/json');
  });

  it('refuses a scrape whose webhook_url is http or names a private address, before anything is charged', async () => {
    const keyApi = apiClient(stack.baseUrl, user.key);
    const plain = await keyApi.post('/api/v1/scrape', { url: `${site.url}/article`, webhook_url: 'http://example.com/hook' });
    expect(plain.status).to.equal(400);
    const privateHook = await keyApi.post('/api/v1/scrape', { url: `${site.url}/article`, webhook_url: 'https://10.0.0.1/hook' });
    expect(privateHook.status).to.equal(400);
    expect(privateHook.body.error).to.equal('URL_NOT_ALLOWED');
  });
});
