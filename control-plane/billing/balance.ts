import type pg from 'pg';
import { balanceTier, type BalanceTier } from '../../common/balance-tiers.js';
import { TrawlError } from '../../common/errors.js';
import type { SubscriptionStatus } from './subscription.js';

export interface BalanceView {
  balanceMicrocents: number;
  tier: BalanceTier;
  isEnterprise: boolean;
  subscriptionStatus: SubscriptionStatus;
}

/** An account's balance as the billing and usage routes show it: with its limit tier (SPEC 8.1) and subscription status. */
export async function loadBalance(db: pg.Pool | pg.PoolClient, accountId: string): Promise<BalanceView> {
  const row = (
    await db.query<{ balance_microcents: string; is_enterprise: boolean; subscription_status: SubscriptionStatus }>(
      'SELECT balance_microcents, is_enterprise, subscription_status FROM accounts WHERE id = $1',
      [accountId],
    )
  ).rows[0];
  if (!row) throw new TrawlError('NOT_FOUND', 'No such account');
  const balanceMicrocents = Number(row.balance_microcents);
  return {
    balanceMicrocents,
    tier: balanceTier(balanceMicrocents, row.is_enterprise),
    isEnterprise: row.is_enterprise,
    subscriptionStatus: row.subscription_status,
  };
}
