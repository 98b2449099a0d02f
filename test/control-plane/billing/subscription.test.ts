import { expect } from 'chai';
import { createAccount } from '../../../control-plane/accounts/api-keys.js';
import {
  applyProviderSubscriptionStatus,
  setSubscriptionStatus,
  subscriptionStatusOf,
} from '../../../control-plane/billing/subscription.js';
import { balanceOf } from '../../support/api.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

describe('subscription status and dispatch', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  before(async () => {
    stack = await getControlPlaneServices();
  });

  const statusOf = async (accountId: string) =>
    (await stack.pool.query<{ subscription_status: string }>('SELECT subscription_status FROM accounts WHERE id = $1', [accountId])).rows[0]!
      .subscription_status;

  it('maps the provider statuses: trialing counts as active, unpaid as past due, incomplete changes nothing', () => {
    expect(['active', 'trialing', 'past_due', 'unpaid', 'canceled', 'incomplete_expired', 'incomplete', 'paused'].map(subscriptionStatusOf)).to.deep.equal([
      'active', 'active', 'past_due', 'past_due', 'cancelled', 'cancelled', null, null,
    ]);
  });

  it('starts every account at none and applies a provider report only when it is not older than the last one applied', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'subscription', initialMicrocents: 0 });
    expect(await statusOf(accountId)).to.equal('none');
    const t = Date.now();
    expect(await applyProviderSubscriptionStatus(stack.pool, accountId, 'past_due', new Date(t))).to.equal(true);
    expect(await applyProviderSubscriptionStatus(stack.pool, accountId, 'active', new Date(t - 60_000))).to.equal(false);
    expect(await statusOf(accountId)).to.equal('past_due');
    expect(await applyProviderSubscriptionStatus(stack.pool, accountId, 'active', new Date(t + 1_000))).to.equal(true);
    expect(await statusOf(accountId)).to.equal('active');
  });

  it('refuses admission with SUBSCRIPTION_INACTIVE while the subscription is past due or cancelled, recording the job as rejected without a charge', async () => {
    const caller = await createTestCaller(stack, 100_000);
    for (const status of ['past_due', 'cancelled'] as const) {
      await setSubscriptionStatus(stack.pool, caller.accountId, status);
      const refused = (await admitTestJob(stack, caller).catch((err: unknown) => err)) as { code?: string; details?: Record<string, unknown> };
      expect(refused.code).to.equal('SUBSCRIPTION_INACTIVE');
      const job = await stack.pool.query('SELECT status, error_code, error_http_status FROM jobs WHERE id = $1', [refused.details?.['job_id']]);
      expect(job.rows[0]).to.deep.equal({ status: 'rejected', error_code: 'SUBSCRIPTION_INACTIVE', error_http_status: 402 });
      expect(await balanceOf(stack.pool, caller.accountId)).to.equal(100_000);
    }
    for (const status of ['none', 'active'] as const) {
      await setSubscriptionStatus(stack.pool, caller.accountId, status);
      const admitted = await admitTestJob(stack, caller);
      expect(admitted.balanceMicrocents).to.be.lessThan(100_000);
    }
  });
});
