import { expect } from 'chai';
import { apiClient, balanceOf } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const USD = 1_000_000;

describe('billing routes: SUBSCRIPTION_INACTIVE from the payment provider\'s subscription events', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let webhookUrl: string;
  before(async () => {
    stack = await getStack();
    webhookUrl = `${stack.baseUrl}/api/v1/billing/webhook`;
  });

  const subscriptionEvent = (type: string, subscription: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) =>
    stack.payments.sendEvent(webhookUrl, { type, created, data: { object: { id: 'sub_123', object: 'subscription', ...subscription } } });
  const statusOf = async (user: TestUser) => (await apiClient(stack.baseUrl, user.key).get('/api/v1/billing/balance')).body.subscription_status;
  const extract = (user: TestUser) => apiClient(stack.baseUrl, user.key).post('/api/v1/extract', { content: '<p>Dispatch me.</p>', formats: ['text'] });
  const scrape = (user: TestUser) => apiClient(stack.baseUrl, user.key).post('/api/v1/scrape', { url: 'https://example.com/' });

  // Growth-tier balances ($60): the burst limit of the free tier would refuse these quick calls first.
  it('refuses scrape and extract with 402 SUBSCRIPTION_INACTIVE while the subscription is past due, charging nothing, and takes them again once it is active', async () => {
    const user = await createTestUser(stack, { microcents: 60 * USD });
    expect(await statusOf(user)).to.equal('none');
    const t = Math.floor(Date.now() / 1000);
    const pastDue = await subscriptionEvent('customer.subscription.updated', { status: 'past_due', customer: 'cus_none', metadata: { account_id: user.accountId } }, t);
    expect(pastDue.body).to.deep.equal({ received: true, outcome: 'subscription_updated' });
    expect(await statusOf(user)).to.equal('past_due');

    for (const call of [extract, scrape]) {
      const res = await call(user);
      expect(res.status).to.equal(402);
      expect(res.body.error).to.equal('SUBSCRIPTION_INACTIVE');
      expect(res.body.message).to.match(/past due or cancelled/);
    }
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(60 * USD);
    // Reads are not dispatching: the balance and usage still answer.
    expect((await apiClient(stack.baseUrl, user.key).get('/api/v1/usage')).status).to.equal(200);

    // An older report arriving late does not undo the newer one.
    const late = await subscriptionEvent('customer.subscription.updated', { status: 'active', metadata: { account_id: user.accountId } }, t - 60);
    expect(late.body.outcome).to.equal('ignored');
    expect((await extract(user)).status).to.equal(402);

    const active = await subscriptionEvent('customer.subscription.updated', { status: 'active', metadata: { account_id: user.accountId } }, t + 1);
    expect(active.body.outcome).to.equal('subscription_updated');
    expect(await statusOf(user)).to.equal('active');
    const ok = await extract(user);
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('cancels by the customer learnt from a completed checkout when the subscription is deleted', async () => {
    const user = await createTestUser(stack, { microcents: 60 * USD });
    const opened = await apiClient(stack.baseUrl).post(
      '/api/v1/billing/checkout',
      { amount_usd: 5, success_url: 'https://app.example/ok', cancel_url: 'https://app.example/no' },
      { Authorization: `Bearer ${user.token}` },
    );
    expect(opened.status).to.equal(201);
    expect((await stack.payments.completeSession(opened.body.session_id, webhookUrl)).body.outcome).to.equal('deposited');
    const customer = stack.payments.sessions.get(opened.body.session_id)!.customer;

    const deleted = await subscriptionEvent('customer.subscription.deleted', { status: 'canceled', customer });
    expect(deleted.body.outcome).to.equal('subscription_updated');
    expect(await statusOf(user)).to.equal('cancelled');
    const res = await extract(user);
    expect(res.status).to.equal(402);
    expect(res.body.error).to.equal('SUBSCRIPTION_INACTIVE');
  });

  it('ignores subscription events for accounts it does not know and transitional statuses', async () => {
    const user = await createTestUser(stack, { microcents: 60 * USD });
    const unknown = await subscriptionEvent('customer.subscription.updated', { status: 'past_due', customer: 'cus_nobody', metadata: { account_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.body.outcome).to.equal('ignored');
    const incomplete = await subscriptionEvent('customer.subscription.created', { status: 'incomplete', metadata: { account_id: user.accountId } });
    expect(incomplete.body.outcome).to.equal('ignored');
    expect(await statusOf(user)).to.equal('none');
  });
});
