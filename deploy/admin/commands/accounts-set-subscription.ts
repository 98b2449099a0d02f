import { isSubscriptionStatus, setSubscriptionStatus, SUBSCRIPTION_STATUSES } from '../../../control-plane/billing/subscription.js';
import { userAccountByEmail } from '../accounts-lookup.js';
import { requiredString, UsageError, type AdminCommand } from '../command.js';

/** Sets the subscription status, e.g. clears a cancelled one (402 SUBSCRIPTION_INACTIVE) back to none. */
export const accountsSetSubscription: AdminCommand = {
  name: 'accounts set-subscription',
  usage: `--email E --status ${SUBSCRIPTION_STATUSES.join('|')}`,
  summary: "set the subscription status of E's personal account (none or active lift SUBSCRIPTION_INACTIVE)",
  options: { email: { type: 'string' }, status: { type: 'string' } },
  async run(ctx, values) {
    const email = requiredString(values, 'email');
    const status = requiredString(values, 'status');
    if (!isSubscriptionStatus(status)) throw new UsageError(`--status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
    const { accountId } = await userAccountByEmail(ctx.pool, email);
    await setSubscriptionStatus(ctx.pool, accountId, status);
    ctx.print(`account ${accountId}: subscription ${status}`);
  },
};
