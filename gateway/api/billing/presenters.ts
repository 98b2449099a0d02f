import type { BillingBalance, BillingUsage, BillingUsageTotals } from '../../../proto/gen/trawl/v1/account_billing_pb.js';
import { toCredits, toUsd } from '../../../common/pricing.js';

/** The balance view of GET /api/v1/billing/balance and GET /api/v1/usage/balance. */
export function presentBalance(balance: BillingBalance) {
  return {
    balance_microcents: Number(balance.balanceMicrocents),
    balance_credits: toCredits(balance.balanceMicrocents),
    balance_usd: toUsd(balance.balanceMicrocents),
    tier: { id: balance.tierId, name: balance.tierName },
    is_enterprise: balance.isEnterprise,
    subscription_status: balance.subscriptionStatus as 'none' | 'active' | 'past_due' | 'cancelled',
  };
}

/** Usage totals; a message without them (never sent by the control plane) reads as zeros. */
function presentTotals(t: BillingUsageTotals | undefined) {
  const spend = t?.spendMicrocents ?? 0n;
  return {
    total_requests: Number(t?.totalRequests ?? 0n),
    successful_requests: Number(t?.successfulRequests ?? 0n),
    failed_requests: Number(t?.failedRequests ?? 0n),
    credits_used: toCredits(spend),
    spend_microcents: Number(spend),
    refunded_microcents: Number(t?.refundedMicrocents ?? 0n),
    deposits_microcents: Number(t?.depositsMicrocents ?? 0n),
  };
}

export function presentUsage(usage: BillingUsage) {
  return { days: usage.days, ...presentTotals(usage.totals), by_day: usage.byDay.map((day) => ({ date: day.date, ...presentTotals(day.totals) })) };
}
