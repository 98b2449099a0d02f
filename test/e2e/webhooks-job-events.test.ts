import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

describe('Job events delivered to a per-request webhook_url (end to end)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let receiver: WebhookReceiver;
  let user: TestUser;

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

  it('posts job.started and job.completed of a scrape to its webhook_url, signed with the account secret', async () => {
    const api = apiClient(stack.baseUrl, user.key);
    const url = `${receiver.url}?job=completed`;
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['markdown'], webhook_url: url });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const got = await receiver.waitFor(2, 20_000, (r) => r.rawBody.includes(res.body.job_id));
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
    const secret = (await api.get('/api/v1/webhook-signing-secret')).body.secret;
    expect(secret).to.match(/^whsec_/);
    expect(await verify(secret, completed.rawBody.toString('utf8'), String(completed.headers['x-service-signature']))).to.equal(true);
    expect(completed.headers['user-agent']).to.equal('Service-Webhook/1.0');
    expect(completed.headers['content-type']).to.equal('application/json');
  });
});
