import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { startWebhookReceiver, type ReceivedDelivery, type ReceiverAnswer, type WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';
import { deliveriesTo, eventually } from '../support/webhooks.js';
import { sealSecret } from '../../control-plane/events/signing.js';

/** The suite's stack retries after 1 s and then 2 s (TRAWL_WEBHOOK_RETRY_DELAYS_MS in test/support/stack.ts). */
const RETRY_DELAYS_MS = [1_000, 2_000];

describe('Webhook delivery: retries, states, disabling, SSRF and a killed pool (end to end)', function () {
  this.timeout(180_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let receiver: WebhookReceiver;
  const answers = new Map<string, (r: ReceivedDelivery, nth: number) => ReceiverAnswer>();

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    receiver = await startWebhookReceiver();
    // Each test answers the requests to its own path its own way.
    receiver.answer((r) => {
      const key = [...answers.keys()].find((k) => r.path.endsWith(k));
      if (!key) return { status: 200 };
      const nth = receiver.received.filter((x) => x.path.endsWith(key)).length;
      return answers.get(key)!(r, nth);
    });
  });
  after(async () => {
    await site.close();
    await receiver.close();
  });

  async function subscribe(events: string[], tag: string, url = `${receiver.url}?t=${tag}`) {
    const user = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
    const res = await apiClient(stack.baseUrl).post('/api/v1/user-webhooks', { name: tag, url, events }, { Authorization: `Bearer ${user.token}` });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { user, webhook: res.body as { id: string; url: string; secret: string }, path: `?t=${tag}` };
  }
  const scrape = (user: TestUser, sync = true) =>
    apiClient(stack.baseUrl, user.key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['text'], sync });

  it('retries a failed attempt after 1 and then 2 more seconds under the same delivery id, recording each attempt', async () => {
    const { user, webhook, path } = await subscribe(['job.completed'], 'retry');
    answers.set(path, (_r, nth) => ({ status: nth <= 2 ? 500 : 200 }));
    await scrape(user);
    const retrying = await eventually(async () => {
      const [d] = await deliveriesTo(stack, webhook.url);
      return d?.status === 'retrying' ? d : undefined;
    }, 15_000, 'the retrying state');
    expect(retrying).to.include({ attempt_count: 1, response_status_code: 500 });
    expect(retrying.next_attempt_at).to.be.an.instanceOf(Date);
    const done = await eventually(async () => {
      const [d] = await deliveriesTo(stack, webhook.url);
      return d?.status === 'success' ? d : undefined;
    }, 20_000, 'the delivery to succeed');
    expect(done.attempt_count).to.equal(3);
    expect(done.attempts.map((a) => a.status_code)).to.deep.equal([500, 500, 200]);
    const gap = (i: number) => Date.parse(done.attempts[i]!.started_at) - Date.parse(done.attempts[i - 1]!.finished_at);
    expect(gap(1)).to.be.at.least(RETRY_DELAYS_MS[0]! - 50).and.below(RETRY_DELAYS_MS[0]! + 1_500);
    expect(gap(2)).to.be.at.least(RETRY_DELAYS_MS[1]! - 50).and.below(RETRY_DELAYS_MS[1]! + 1_500);
    const sent = receiver.received.filter((r) => r.path.endsWith(path));
    expect(sent).to.have.length(3);
    // Every attempt is the same delivery: one id, the same bytes, a signature that verifies.
    expect(new Set(sent.map((r) => r.deliveryId))).to.deep.equal(new Set([done.id]));
    expect(new Set(sent.map((r) => r.rawBody.toString('base64'))).size).to.equal(1);
    expect(await verify(webhook.secret, sent[2]!.rawBody.toString('utf8'), String(sent[2]!.headers['x-service-signature']))).to.equal(true);
  });

  it('fails a delivery after 3 attempts, disables the webhook after 5 failed attempts in a row, and enables it again', async () => {
    const { user, webhook, path } = await subscribe(['job.started', 'job.completed'], 'disable');
    let healthy = false;
    answers.set(path, () => ({ status: healthy ? 200 : 503 }));
    const session = { Authorization: `Bearer ${user.token}` };
    const api = apiClient(stack.baseUrl);
    await scrape(user);
    const rows = await eventually(async () => {
      const d = await deliveriesTo(stack, webhook.url);
      return d.length === 2 && d.every((x) => x.status === 'failed') ? d : undefined;
    }, 30_000, 'both deliveries to fail');
    const attempts = rows.reduce((n, d) => n + d.attempt_count, 0);
    expect(attempts).to.be.within(5, 6);
    expect(rows.some((d) => d.attempt_count === 3 && d.attempts.every((a) => a.status_code === 503))).to.equal(true);
    const listed = await api.get('/api/v1/user-webhooks?include_inactive=true', session);
    expect(listed.body.webhooks[0]).to.include({ id: webhook.id, is_active: false });
    expect(listed.body.webhooks[0].failure_count).to.be.at.least(5);
    expect((await api.get('/api/v1/user-webhooks', session)).body.total).to.equal(0);
    const failed = await api.get(`/api/v1/user-webhooks/${webhook.id}/deliveries?status=failed`, session);
    expect(failed.body.total).to.equal(2);

    // Disabled: a new job creates no delivery.
    const before = receiver.received.filter((r) => r.path.endsWith(path)).length;
    await scrape(user);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await deliveriesTo(stack, webhook.url)).length).to.equal(2);
    expect(receiver.received.filter((r) => r.path.endsWith(path)).length).to.equal(before);

    healthy = true;
    const enabled = await api.post(`/api/v1/user-webhooks/${webhook.id}/enable`, undefined, session);
    expect(enabled.body).to.include({ is_active: true, failure_count: 0 });
    await scrape(user);
    await eventually(async () => {
      const d = await deliveriesTo(stack, webhook.url);
      return d.filter((x) => x.status === 'success').length === 2 ? d : undefined;
    }, 20_000, 'deliveries after enabling');
  });

  it('never follows a redirect, and never reaches a private address that a subscription points at', async () => {
    const inside = await startWebhookReceiver({ host: '127.0.0.2' });
    try {
      const { user, webhook, path } = await subscribe(['job.completed'], 'redirect');
      answers.set(path, () => ({ status: 302, location: `${inside.url}?from=redirect` }));
      await scrape(user);
      const redirected = await eventually(async () => {
        const [d] = await deliveriesTo(stack, webhook.url);
        return d && d.attempt_count >= 1 ? d : undefined;
      }, 15_000, 'the redirected attempt');
      expect(redirected.response_status_code).to.equal(302);
      expect(redirected.error_message).to.match(/Redirect \(302\) not followed/);

      // A subscription whose address became private after it was created (DNS changed): refused at connect time.
      const owner = await createTestUser(stack, { microcents: 1_000_000, enterprise: true });
      await stack.pool.query(
        `INSERT INTO webhook_subscriptions (user_id, name, url, events, secret_sealed) VALUES ($1, 'inside', $2, '{job.completed}', $3)`,
        [owner.userId, inside.url, sealSecret('whsec_inside', stack.config.masterKeyHex)],
      );
      await scrape(owner);
      const refused = await eventually(async () => {
        const [d] = await deliveriesTo(stack, inside.url);
        return d && d.attempt_count >= 1 ? d : undefined;
      }, 15_000, 'the refused attempt');
      expect(refused.response_status_code).to.equal(null);
      expect(refused.error_message).to.match(/not a public internet address/);
      expect(inside.received).to.have.length(0);
    } finally {
      await inside.close();
    }
  });

  it('loses nothing and answers each delivery once when the webhooks pool is killed mid-delivery', async () => {
    const { user, webhook, path } = await subscribe(['job.completed'], 'kill');
    // Every request that arrives before the restart is held until the pool that may have sent it has died and
    // another has started: the dead pool never hears an answer, however many requests it sent before the kill.
    let restarted!: () => void;
    const afterRestart = new Promise<void>((resolve) => (restarted = resolve));
    let holding = true;
    void afterRestart.then(() => (holding = false));
    answers.set(path, () => (holding ? { status: 200, until: afterRestart } : { status: 200 }));
    const jobs = 6;
    for (let i = 0; i < jobs; i += 1) expect((await scrape(user, false)).status).to.equal(202);
    await receiver.waitFor(3, 20_000, (r) => r.path.endsWith(path));
    await stack.kill('webhooks', 'SIGKILL');
    await stack.start('webhooks');
    restarted();
    const rows = await eventually(async () => {
      const d = await deliveriesTo(stack, webhook.url);
      return d.length === jobs && d.every((x) => x.status === 'success') ? d : undefined;
    }, 60_000, 'every delivery to succeed after the restart');
    expect(rows.every((d) => d.attempt_count === 1)).to.equal(true);
    const sent = receiver.received.filter((r) => r.path.endsWith(path));
    const byId = new Map<string, ReceivedDelivery[]>();
    for (const r of sent) byId.set(r.deliveryId, [...(byId.get(r.deliveryId) ?? []), r]);
    expect([...byId.keys()].sort()).to.deep.equal(rows.map((d) => d.id).sort());
    for (const [id, copies] of byId) {
      // Answered exactly once; a copy the dead pool never heard back about comes again with the same id and bytes.
      expect(copies.filter((c) => c.answered), id).to.have.length(1);
      expect(new Set(copies.map((c) => c.rawBody.toString('base64'))).size).to.equal(1);
      if (copies[0]!.answered) expect(copies, `${id} was answered, and sent again`).to.have.length(1);
    }
    expect([...byId.values()].some((copies) => copies.length === 2)).to.equal(true);
    const events = await stack.pool.query('SELECT count(*)::int AS n FROM event_outbox WHERE account_id = $1 AND type = $2', [user.accountId, 'job.completed']);
    expect(events.rows[0].n).to.equal(jobs);
  });
});
