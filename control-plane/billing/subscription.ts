import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';

/**
 * An account's subscription as the payment provider last reported it. No
 * subscription is needed to scrape (SPEC 8.1 rule 2): 'none' and 'active'
 * dispatch alike. 'past_due' and 'cancelled' refuse dispatching requests with
 * 402 SUBSCRIPTION_INACTIVE until the provider reports the subscription
 * active again or an operator clears it.
 */
export const SUBSCRIPTION_STATUSES = ['none', 'active', 'past_due', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

const REFUSING: readonly SubscriptionStatus[] = ['past_due', 'cancelled'];

export function isSubscriptionStatus(value: string): value is SubscriptionStatus {
  return (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}

/** SQL condition on an accounts row (by its `subscription_status` column) that refuses dispatch. */
export const SUBSCRIPTION_REFUSES_DISPATCH_SQL = `subscription_status IN (${REFUSING.map((s) => `'${s}'`).join(', ')})`;

export const SUBSCRIPTION_INACTIVE_MESSAGE =
  'The subscription of this account is past due or cancelled; settle it with the payment provider, or ask the operator to clear it';

export function subscriptionInactive(details: Record<string, unknown>): TrawlError {
  return new TrawlError('SUBSCRIPTION_INACTIVE', SUBSCRIPTION_INACTIVE_MESSAGE, details);
}

/**
 * The status a provider's subscription status stands for here; null for the
 * transitional ones (incomplete, paused), which change nothing.
 */
export function subscriptionStatusOf(providerStatus: string): SubscriptionStatus | null {
  switch (providerStatus) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'past_due':
    case 'unpaid':
      return 'past_due';
    case 'canceled':
    case 'incomplete_expired':
      return 'cancelled';
    default:
      return null;
  }
}

/**
 * Records a status the provider reported at `reportedAt`, unless a later
 * report was already applied. Answers whether the account changed.
 */
export async function applyProviderSubscriptionStatus(
  db: pg.Pool | pg.PoolClient,
  accountId: string,
  status: SubscriptionStatus,
  reportedAt: Date,
): Promise<boolean> {
  const res = await db.query(
    `UPDATE accounts SET subscription_status = $2, subscription_updated_at = $3
      WHERE id = $1 AND (subscription_updated_at IS NULL OR subscription_updated_at <= $3)`,
    [accountId, status, reportedAt],
  );
  return (res.rowCount ?? 0) > 0;
}

/** An operator's setting of the status (e.g. clearing a cancelled subscription to 'none'); later provider reports still apply. */
export async function setSubscriptionStatus(db: pg.Pool | pg.PoolClient, accountId: string, status: SubscriptionStatus): Promise<void> {
  await db.query('UPDATE accounts SET subscription_status = $2, subscription_updated_at = now() WHERE id = $1', [accountId, status]);
}
